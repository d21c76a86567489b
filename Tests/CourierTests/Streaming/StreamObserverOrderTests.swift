import Courier
import Foundation
import XCTest

/// A stream's observers hear of its response before the caller's own code does: `onResponse`
/// (callbacks, blocking) and `bytes(for:)` returning (async) come after the observers'
/// `didReceive`, on both engines. Before, the head went to the consumer first, and a blocking
/// stream whose `onResponse` threw could return before any observer had heard of the response
/// (the CLI's `-w %{http_code}` printed `000` for a 404 with `-f`, seen once in CI).
final class StreamObserverOrderTests: XCTestCase {
    /// Counts `didReceive`, slowly: the pause widens the window in which a consumer handed the
    /// head first would run before this observer has counted it (it orders nothing itself).
    private final class SlowHeadCounter: NetworkObserver, @unchecked Sendable {  // `count` is under `lock`.
        private let lock = NSLock()
        private var count = 0

        var heads: Int { lock.withLock { count } }

        func didReceive(_ response: HTTPResponse, context: RequestContext) {
            usleep(2_000)
            lock.withLock { count += 1 }
        }
    }

    private let rounds = 5

    private func serve() throws -> TestServer {
        let server = try makeServer()
        server.route("/body") { _, writer in writer.respond(status: 200, text: "hello") }
        return server
    }

    func testABlockingStreamsOnResponseRunsAfterTheObserversHeard() throws {
        let server = try serve()
        for round in 0..<rounds {
            let network = makeNetwork()
            let counter = SlowHeadCounter()
            network.observers = [counter]
            var seen = -1
            let result = network.streamSynchronously(Request<Data>.get(server.url("/body")), timeout: 10,
                                                     onResponse: { _ in seen = counter.heads }, onData: { _ in })
            XCTAssertEqual(try result.get().statusCode, 200, "round \(round)")
            XCTAssertEqual(seen, 1, "round \(round): observers had heard of \(seen) heads when onResponse ran")
        }
    }

    /// The CLI's case: `onResponse` refuses the response, and the call returns at once.
    func testABlockingStreamThatRefusesItsResponseReturnsAfterTheObserversHeard() throws {
        let server = try makeServer()
        server.route("/missing") { _, writer in writer.respond(status: 404, text: "no") }
        struct Refused: Error {}
        for round in 0..<rounds {
            let network = makeNetwork()
            let counter = SlowHeadCounter()
            network.observers = [counter]
            var request = Request<Data>.get(server.url("/missing"))
            request.acceptedStatusCodes = Set(100..<1000)   // every status an answer, as in the CLI
            let result = network.streamSynchronously(request, timeout: 10,
                                                     onResponse: { _ in throw Refused() }, onData: { _ in })
            XCTAssertThrowsError(try result.get(), "round \(round)") { XCTAssertTrue($0 is Refused, "\($0)") }
            XCTAssertEqual(counter.heads, 1, "round \(round): the call returned before the observers heard of the 404")
        }
    }

    func testACallbackStreamsOnResponseRunsAfterTheObserversHeard() throws {
        let server = try serve()
        for round in 0..<rounds {
            let network = makeNetwork()
            let counter = SlowHeadCounter()
            network.observers = [counter]
            let seen = Box<Int>()
            let done = expectation(description: "completion \(round)")
            network.stream(Request<Data>.get(server.url("/body")), onResponse: { _ in seen.value = counter.heads },
                           onData: { _ in }, completion: { _ in done.fulfill() })
            wait(for: [done], timeout: 10)
            XCTAssertEqual(seen.value, 1, "round \(round)")
        }
    }

    /// An observer that cancels on the head ends the stream before its consumer sees the head:
    /// the completion gets the cancel, once, and `onResponse` never runs.
    func testAnObserverThatCancelsOnTheHeadEndsTheStreamBeforeOnResponse() throws {
        struct Canceller: NetworkObserver {
            let network: Network
            func didReceive(_ response: HTTPResponse, context: RequestContext) { network.cancelAll() }
        }
        let server = try serve()
        let network = makeNetwork()
        network.observers = [Canceller(network: network)]
        let responses = Box<Int>(0)
        let completions = Box<[String]>([])
        let done = expectation(description: "completion")
        network.stream(Request<Data>.get(server.url("/body")), onResponse: { _ in responses.mutate { $0! += 1 } },
                       onData: { _ in }, completion: { result in
                           completions.mutate { $0!.append("\(result)") }
                           done.fulfill()
                       })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(responses.value, 0)
        XCTAssertEqual(completions.value?.count, 1)
        XCTAssertTrue(completions.value?.first?.contains("cancelled") == true, "\(completions.value ?? [])")
    }

    func testAnAsyncStreamIsReturnedAfterTheObserversHeard() async throws {
        let server = try serve()
        for round in 0..<rounds {
            let network = makeNetwork()
            let counter = SlowHeadCounter()
            network.observers = [counter]
            let (response, body) = try await network.bytes(for: Request<Data>.get(server.url("/body")))
            let seen = counter.heads
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(seen, 1, "round \(round)")
            for try await _ in body {}
        }
    }
}
