import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The idle (stall) and connect timeouts, on both engines: a server that stalls mid-body, one
/// that accepts and never answers, and a connect that never completes (a listener whose backlog
/// is full, on loopback). Each blocking call has a `timeout:` far beyond the limit under test, so
/// a limit that does not fire fails the test instead of hanging it.
final class StallAndConnectTimeoutTests: XCTestCase {
    private var onURLSession: Bool { ProcessInfo.processInfo.environment["COURIER_ENGINE"] == "urlsession" }

    func testAStallMidBodyEndsAtTheRequestsIdleTimeoutThoughTheRequestHasNoDeadline() throws {
        let server = try stallingServer()
        var request = Request<Data>(url: server.url("/stall"), timeout: .infinity)
        request.transferOptions.idleTimeout = 0.4
        let result = makeNetwork().scheduleSynchronously(request, timeout: 30)
        guard case let .failure(NetworkError.timedOut(limit)) = result else { return XCTFail("expected the idle timeout, got \(result)") }
        XCTAssertEqual(limit.kind, .idle)
        XCTAssertEqual(limit.seconds, 0.4, "fractional seconds, as given")
        XCTAssertEqual(limit.url?.path, "/stall")
    }

    /// A deadline later than the stall: the stall ends the attempt first. (A deadline earlier
    /// than the first check makes the watch unnecessary: the deadline ends the request.)
    func testAStallBeforeTheDeadlineEndsTheAttemptAndADeadlineBeforeTheStallEndsTheRequest() throws {
        let server = try stallingServer()
        var stall = Request<Data>(url: server.url("/stall"), timeout: 20)
        stall.transferOptions.idleTimeout = 0.3
        guard case let .failure(NetworkError.timedOut(idle)) = makeNetwork().scheduleSynchronously(stall, timeout: 30) else {
            return XCTFail("expected the idle timeout")
        }
        XCTAssertEqual(idle.kind, .idle)

        var deadline = Request<Data>(url: server.url("/stall"), timeout: 0.3)
        deadline.transferOptions.idleTimeout = 20
        guard case let .failure(NetworkError.timedOut(passed)) = makeNetwork().scheduleSynchronously(deadline, timeout: 30) else {
            return XCTFail("expected the deadline")
        }
        XCTAssertEqual(passed.kind, .requestDeadline)
    }

    /// GettingStarted's promise: a network made from a configuration keeps its
    /// `timeoutIntervalForRequest` as the idle timeout of requests without a deadline.
    func testTheConfigurationsTimeoutIntervalForRequestIsTheIdleTimeoutOfARequestWithoutADeadline() throws {
        let server = try stallingServer()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.5
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"))
        addTeardownBlock { network.cancelAll() }
        network.retryPolicy = .none   // the default policy would try three times
        let result = network.scheduleSynchronously(Request<Data>(url: server.url("/stall"), timeout: .infinity), timeout: 30)
        guard case let .failure(NetworkError.timedOut(limit)) = result else { return XCTFail("expected the idle timeout, got \(result)") }
        XCTAssertEqual(limit.kind, .idle)
        XCTAssertEqual(limit.seconds, 0.5)
    }

    func testTheNetworksIdleTimeoutAppliesAndARequestsOwnWinsOverIt() throws {
        let server = try stallingServer()
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test.callbacks"),
                              connection: ConnectionOptions(idleTimeout: 0.3))
        network.retryPolicy = .none
        addTeardownBlock { network.cancelAll() }
        let inherited = network.scheduleSynchronously(Request<Data>(url: server.url("/stall"), timeout: .infinity), timeout: 30)
        guard case let .failure(NetworkError.timedOut(limit)) = inherited else { return XCTFail("expected the idle timeout, got \(inherited)") }
        XCTAssertEqual(limit.seconds, 0.3, "the network's")

        var own = Request<Data>(url: server.url("/stall"), timeout: .infinity)
        own.transferOptions.idleTimeout = 0.6
        let result = network.scheduleSynchronously(own, timeout: 30)
        guard case let .failure(NetworkError.timedOut(ownLimit)) = result else { return XCTFail("expected the idle timeout, got \(result)") }
        XCTAssertEqual(ownLimit.seconds, 0.6, "the request's own")
    }

    /// Bytes that keep coming, each within the idle timeout, are no stall however long the whole takes.
    func testASlowButSteadyBodyIsNoStall() throws {
        let server = try makeServer()
        server.route("/drip") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "6")])
            for byte in "abcdef".utf8 {
                writer.write(Data([byte]))
                usleep(150_000)   // the server's pace, not synchronisation: 0.9 s in all, each gap under the limit
            }
        }
        var request = Request<Data>(url: server.url("/drip"), timeout: .infinity).string()
        request.transferOptions.idleTimeout = 0.6
        XCTAssertEqual(try makeNetwork().scheduleSynchronously(request, timeout: 30).get(), "abcdef")
    }

    /// A stream whose consumer is behind stops reading the socket (backpressure): that wait is
    /// Courier's own, not the server's, and is no stall however long it lasts.
    func testAConsumerThatIsBehindIsNoStall() throws {
        let server = try makeServer()
        let size = 8 << 20   // four times the stream's buffer: the transfer must hold chunks while the consumer waits
        server.routePattern("/big", length: size)
        var request = Request<Data>(url: server.url("/big"), timeout: .infinity)
        request.transferOptions.idleTimeout = 0.3
        let received = Box<Int>()
        received.value = 0
        let paused = Box<Bool>()
        let done = expectation(description: "completion")
        makeNetwork().stream(request, onData: { chunk in
            received.value = (received.value ?? 0) + chunk.count
            guard paused.value == nil, (received.value ?? 0) >= 1 << 20 else { return }
            paused.value = true
            // The scenario: the consumer stops for three times the idle timeout.
            Thread.sleep(forTimeInterval: 1)
        }, completion: { result in
            if case let .failure(error) = result { XCTFail("\(error)") }
            done.fulfill()
        })
        wait(for: [done], timeout: 60)
        XCTAssertEqual(received.value, size, "every byte, after the pause")
    }

    func testAServerThatAcceptsAndNeverAnswersIsAStallAndOnCurlNotAConnectTimeout() throws {
        let server = try makeServer()
        holdRequests(at: "/silent", on: server)
        var request = Request<Data>(url: server.url("/silent"), timeout: .infinity)
        request.transferOptions = TransferOptions(idleTimeout: 0.8, connectTimeout: 0.2)
        let result = makeNetwork().scheduleSynchronously(request, timeout: 30)
        guard case let .failure(NetworkError.timedOut(limit)) = result else { return XCTFail("expected a timeout, got \(result)") }
        if onURLSession {
            // URLSession reports no connect: its connect timeout lasts until the first byte.
            XCTAssertEqual(limit.kind, .connect)
            XCTAssertEqual(limit.seconds, 0.2)
        } else {
            XCTAssertEqual(limit.kind, .idle, "connected at once: the connect timeout is over, the idle one fires")
            XCTAssertEqual(limit.seconds, 0.8)
        }
    }

    func testAConnectThatNeverCompletesEndsAtTheConnectTimeout() throws {
        let listener = try FullBacklogListener()
        addTeardownBlock { listener.close() }
        var request = Request<Data>(url: listener.url, timeout: .infinity)
        request.transferOptions = TransferOptions(idleTimeout: 20, connectTimeout: 0.3)
        let result = makeNetwork().scheduleSynchronously(request, timeout: 30)
        guard case let .failure(NetworkError.timedOut(limit)) = result else { return XCTFail("expected the connect timeout, got \(result)") }
        XCTAssertEqual(limit.kind, .connect)
        XCTAssertEqual(limit.seconds, 0.3)
        XCTAssertTrue("\(NetworkError.timedOut(limit))".contains("timed out connecting"), "\(limit)")
    }

    /// A connect timeout ends the attempt, not the request: the retry policy tries again, as for
    /// any connection that failed, and exactly one completion reports the last attempt's end.
    func testAConnectTimeoutIsRetriedAndEndsOnce() throws {
        let listener = try FullBacklogListener()
        addTeardownBlock { listener.close() }
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maximumDelay: 0.02))
        var request = Request<Data>(url: listener.url, timeout: .infinity)
        request.transferOptions.connectTimeout = 0.2
        let completions = Box<Int>()
        completions.value = 0
        let done = expectation(description: "completion")
        let task = network.schedule(request) { result in
            completions.value = (completions.value ?? 0) + 1
            if case let .failure(NetworkError.timedOut(limit)) = result { XCTAssertEqual(limit.kind, .connect) } else {
                XCTFail("expected the connect timeout, got \(result)")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(task.attemptCount, 3, "each attempt timed out connecting and was retried")
        XCTAssertEqual(completions.value, 1)
    }

    func testMeaninglessTimeoutsAreRefusedBeforeAnythingIsSent() throws {
        let server = try makeServer()
        for value in [0, -1, TimeInterval.nan] {
            var request = Request<Data>(url: server.url("/x"))
            request.transferOptions.idleTimeout = value
            guard case .invalidRequest? = networkError(result(of: request, on: makeNetwork())) else { return XCTFail("\(value)") }
        }
        XCTAssertEqual(server.requestCount, 0)
    }
}
