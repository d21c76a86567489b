import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A request whose deadline (``NetworkRequest/timeout``) has passed when its transfer is about to
/// start ends with `.timedOut` and sends nothing, however small the deadline: a positive one is
/// never rounded down to 0 ("no deadline"), and the deadline timer does not race the answer.
final class PastDeadlineTests: XCTestCase {
    private static let pastDeadlines: [TimeInterval] = [1e-9, .leastNonzeroMagnitude, 0, -0.0]

    /// Asserts that `server` never saw `path`: a request sent to it with a deadline that had
    /// passed would arrive before the one sent after it, on the same network, has been answered.
    private func assertNothingReached(_ server: TestServer, _ path: String, on network: Network,
                                      file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/hello?after")).string(), on: network)?.get(), "hello",
                       file: file, line: line)
        XCTAssertEqual(server.receivedRequests.map(\.query), ["after"], "only the request sent after it", file: file, line: line)
        XCTAssertEqual(server.requestCount, 1, file: file, line: line)
    }

    func testADeadlinePastWhenTheTransferStartsEndsItWithoutSendingAnything() throws {
        for timeout in Self.pastDeadlines {
            let server = try makeServer().withStandardRoutes()
            let network = makeNetwork()
            let outcome = result(of: Request<Data>(url: server.url("/hello?late"), timeout: timeout), on: network)
            guard case .timedOut? = networkError(outcome) else { return XCTFail("timeout \(timeout): \(String(describing: outcome))") }
            assertNothingReached(server, "late", on: network)
        }
    }

    func testEveryCallingConventionSendsNothingPastItsDeadline() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let request = Request<Data>(url: server.url("/hello?late"), timeout: .leastNonzeroMagnitude)
        guard case .timedOut? = networkError(network.scheduleSynchronously(request)) else { return XCTFail("blocking") }
        guard case .timedOut? = networkError(network.streamSynchronously(request, onData: { _ in })) else { return XCTFail("stream") }
        do {
            _ = try await network.response(for: request)
            XCTFail("async: the request succeeded")
        } catch NetworkError.timedOut {}
        let folder = try makeTemporaryDirectory()
        guard case .timedOut? = networkError(network.downloadSynchronously(request, to: folder.appendingPathComponent("file"))) else {
            return XCTFail("download")
        }
        assertNothingReached(server, "late", on: network)
    }

    func testABlockingWaitOverBeforeTheRequestStartsSendsNothing() throws {
        for timeout in Self.pastDeadlines + [-1, -.infinity, .nan] {
            let server = try makeServer().withStandardRoutes()
            let network = makeNetwork()
            let request = Request<Data>.get(server.url("/hello?late"))
            guard case .timedOut? = networkError(network.scheduleSynchronously(request, timeout: timeout)) else {
                return XCTFail("scheduleSynchronously, timeout \(timeout)")
            }
            guard case .timedOut? = networkError(network.streamSynchronously(request, timeout: timeout, onData: { _ in })) else {
                return XCTFail("streamSynchronously, timeout \(timeout)")
            }
            assertNothingReached(server, "late", on: network)
        }
    }

    /// 100 µs may not have passed when the transfer starts, so the request may go out; but an
    /// answer held until the caller has its result can only lose to the deadline.
    func testASubMillisecondDeadlineEndsTheRequestWithTimedOut() throws {
        let server = try makeServer()
        let gate = Gate()
        server.route("/held") { _, writer in
            gate.wait(timeout: 10)
            writer.respond(status: 200, text: "too late")
        }
        let network = makeNetwork()
        for timeout in [1e-4, 1e-6] as [TimeInterval] {
            let outcome = result(of: Request<Data>(url: server.url("/held"), timeout: timeout), on: network)
            guard case .timedOut? = networkError(outcome) else { return XCTFail("timeout \(timeout): \(String(describing: outcome))") }
        }
        gate.open()
    }

    func testTheStubEngineGetsNothingPastTheDeadlineEither() throws {
        let stub = StubServer()
        stub.on(.get, "/a", reply: .text("a"))
        let network = Network(stub: stub, callbackQueue: DispatchQueue(label: "test.callbacks"))
        for timeout in Self.pastDeadlines {
            let outcome = result(of: Request<Data>(url: URL(string: "https://stub.test/a")!, timeout: timeout), on: network)
            guard case .timedOut? = networkError(outcome) else { return XCTFail("timeout \(timeout): \(String(describing: outcome))") }
        }
        XCTAssertEqual(stub.recordedRequests.count, 0, "no request reached the stub")
    }
}
