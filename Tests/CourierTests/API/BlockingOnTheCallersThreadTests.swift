@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// On the curl engine a blocking call runs its transfer on its own thread (``CurlCallerDriver``)
/// instead of handing it to the loop thread and sleeping. Every semantic of the blocking call
/// must hold there too: deadlines, cancellation from other threads, retries, the concurrency
/// limit, observers, nesting, and exactly one result.
final class BlockingOnTheCallersThreadTests: XCTestCase {
    private func curlNetwork(limit: Int = 6, retryPolicy: RetryPolicy = .none) throws -> Network {
        let network = makeNetwork(limit: limit, retryPolicy: retryPolicy)
        guard network.engine == .curl else { throw XCTSkip("the curl engine only: URLSession runs every transfer on its own threads") }
        return network
    }

    /// The observer's calls come from the thread that ran the transfer.
    private final class ThreadRecorder: NetworkObserver, @unchecked Sendable {
        // @unchecked: `threads` is behind its lock.
        private let lock = NSLock()
        private var threads: [pthread_t] = []
        private var ports: [Int?] = []
        func didReceive(_ response: HTTPResponse, context: RequestContext) {
            lock.lock(); threads.append(pthread_self()); lock.unlock()
        }
        func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
            lock.lock(); ports.append(metrics.localPort); lock.unlock()
        }
        var recorded: [pthread_t] { lock.lock(); defer { lock.unlock() }; return threads }
        var localPorts: [Int?] { lock.lock(); defer { lock.unlock() }; return ports }
    }

    /// The standard routes, and `/never`, which answers only after the test has ended.
    private func serverWithARouteThatNeverAnswers() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        let gate = Gate()
        addTeardownBlock { gate.open() }
        server.route("/never") { _, writer in
            gate.wait(timeout: 20)
            writer.respond(status: 200, text: "late")
        }
        return server
    }

    func testTheTransferRunsOnTheCallingThreadAndKeepsItsConnection() throws {
        let server = try makeServer().withStandardRoutes()
        let network = try curlNetwork()
        let recorder = ThreadRecorder()
        network.observers = [recorder]
        for _ in 0..<5 {
            XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20).get(), "hello")
        }
        let ports = Set(recorder.localPorts)
        let caller = pthread_self()
        XCTAssertEqual(recorder.recorded.count, 5)
        XCTAssertTrue(recorder.recorded.allSatisfy { pthread_equal($0, caller) != 0 }, "every head arrived on the caller's thread")
        XCTAssertEqual(recorder.localPorts.count, 5)
        XCTAssertEqual(ports.count, 1, "consecutive blocking calls from one thread share a connection")
    }

    func testACallWaitingForASlotStartsWhenACallbackRequestFreesIt() throws {
        let server = try makeServer().withStandardRoutes()
        let gate = Gate()
        server.route("/held") { _, writer in
            gate.wait(timeout: 20)
            writer.respond(status: 200, text: "held")
        }
        let network = try curlNetwork(limit: 1)
        let first = expectation(description: "callback request done")
        network.schedule(Request<Data>.get(server.url("/held")).string()) { result in
            XCTAssertEqual(try? result.get(), "held")
            first.fulfill()
        }
        XCTAssertTrue(waitUntil { server.receivedRequests.count == 1 })
        let blocked = expectation(description: "blocking call done")
        let answer = Box<String>()
        DispatchQueue.global().async {
            answer.value = (try? network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20).get()) ?? "failed"
            blocked.fulfill()
        }
        // The blocking call holds no slot yet: nothing more reaches the server until the gate opens.
        XCTAssertFalse(waitUntil(timeout: 0.3) { server.receivedRequests.count > 1 })
        gate.open()
        wait(for: [first, blocked], timeout: 20)
        XCTAssertEqual(answer.value, "hello")
    }

    func testTheRequestsDeadlineEndsADrivenCallOnceAndTheThreadCarriesOn() throws {
        let server = try serverWithARouteThatNeverAnswers()
        let network = try curlNetwork()
        var request = Request<Data>.get(server.url("/never"))
        request.timeout = 0.3
        let result = network.scheduleSynchronously(request)
        guard case .failure(NetworkError.timedOut) = result else { return XCTFail("expected timedOut, got \(result)") }
        // The blocking call's own limit, shorter than the request's: the same ending.
        let bounded = network.scheduleSynchronously(Request<Data>.get(server.url("/never")), timeout: 0.3)
        guard case .failure(NetworkError.timedOut) = bounded else { return XCTFail("expected timedOut, got \(bounded)") }
        // The loop the thread drove is clean: the next call on it works and nothing of the
        // abandoned ones comes back.
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20).get(), "hello")
        XCTAssertEqual(network.core.registry.liveCount, 0)
    }

    func testCancelAllFromAnotherThreadEndsADrivenCall() throws {
        let server = try serverWithARouteThatNeverAnswers()
        let network = try curlNetwork()
        let done = expectation(description: "blocking call ended")
        let outcome = Box<Result<Data, any Error>>()
        DispatchQueue.global().async {
            outcome.value = network.scheduleSynchronously(Request<Data>.get(server.url("/never")), timeout: 30)
            done.fulfill()
        }
        XCTAssertTrue(waitUntil { server.receivedRequests.count == 1 })
        network.cancelAll()
        wait(for: [done], timeout: 10)
        guard case .failure(NetworkError.cancelled)? = outcome.value else { return XCTFail("expected cancelled, got \(String(describing: outcome.value))") }
    }

    func testARetryAfterABusyAnswerRunsOnTheDrivenLoop() throws {
        let server = try makeServer().withStandardRoutes()
        server.routeBusyOnce("/busy", then: "fine")
        let network = try curlNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/busy")).string(), timeout: 20).get(), "fine")
        XCTAssertEqual(server.receivedRequests.count, 2)
    }

    /// Code that runs on the driving thread (here an observer) and makes a blocking call is told
    /// at once that it would deadlock, as on the loop thread: its thread is the one that must run
    /// the outer transfer, and with a limit of 1 the slot it waits for is that transfer's.
    func testABlockingCallFromAnObserverOnTheDrivingThreadIsRefused() throws {
        let server = try makeServer().withStandardRoutes()
        let network = try curlNetwork(limit: 1)
        final class Nested: NetworkObserver, @unchecked Sendable {
            // @unchecked: set once before use, read after the outer call returned.
            weak var network: Network?
            var url: URL?
            var answer: Result<String, any Error>?
            func didReceive(_ response: HTTPResponse, context: RequestContext) {
                guard answer == nil, let network, let url, response.url?.path == "/post" else { return }
                answer = network.scheduleSynchronously(Request<Data>.get(url).string(), timeout: 20)
            }
        }
        let nested = Nested()
        nested.network = network
        nested.url = server.url("/hello")
        network.observers = [nested]
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/post")).decoding(Post.self), timeout: 20).get(),
                       Post(id: 1, title: "First"))
        guard case .failure(NetworkError.wouldDeadlock)? = nested.answer else {
            return XCTFail("expected wouldDeadlock, got \(String(describing: nested.answer))")
        }
        // And the same call made after it, on the same thread, works.
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20).get(), "hello")
    }

    /// More blocking callers than loops they may drive (the connections per host): the others go
    /// through the loop thread, and every one ends once with its own answer.
    func testMoreCallersThanDrivenLoopsEachGetTheirOwnAnswer() throws {
        let server = try makeServer().withStandardRoutes()
        let network = try curlNetwork(limit: 16)
        let callers = 24
        let answers = Locked<[Int: Int]>([:])
        let done = expectation(description: "every caller answered")
        done.expectedFulfillmentCount = callers
        // Threads of their own, all blocked at once: a concurrent queue would run only as many
        // callers as the machine has cores, fewer than the 6 loops they may drive.
        for index in 0..<callers {
            let thread = Thread {
                let size = 1000 + index
                let data = try? network.scheduleSynchronously(Request<Data>.get(server.url("/bytes?n=\(size)")), timeout: 30).get()
                answers.withLock { $0[index, default: 0] += data?.count == size ? 1 : 100 }
                done.fulfill()
            }
            thread.start()
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(answers.withLock { $0 }, Dictionary(uniqueKeysWithValues: (0..<callers).map { ($0, 1) }))
    }
}
