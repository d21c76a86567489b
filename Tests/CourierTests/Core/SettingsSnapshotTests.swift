import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A request keeps the network's settings in force when it was scheduled, though they change
/// while it waits in the queue; requests scheduled after the change get the new ones.
final class SettingsSnapshotTests: XCTestCase {
    /// Records the paths of the requests it hears about, and how each ended.
    private final class Recorder: NetworkObserver {
        let events = Locked<[String]>([])
        func willSend(_ request: URLRequest, context: RequestContext) {
            events.withLock { $0.append("send \(request.url?.path ?? "?")") }
        }
        func didReceive(_ response: HTTPResponse, context: RequestContext) {
            events.withLock { $0.append("receive \(response.statusCode)") }
        }
    }

    /// Adds a header naming itself to every attempt.
    private struct Stamp: RequestInterceptor {
        let name: String
        func adapt(_ request: URLRequest, context: RequestContext,
                   completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            var request = request
            request.setValue(name, forHTTPHeaderField: "X-Stamp")
            completion(.success(request))
        }
    }

    func testAQueuedRequestKeepsTheSettingsItWasScheduledWith() throws {
        let server = try makeServer()
        let release = DispatchSemaphore(value: 0)
        server.route("/hold") { _, writer in
            _ = release.wait(timeout: .now() + 20)
            writer.respond(status: 200, text: "held")
        }
        server.route("/moved") { _, writer in writer.respond(status: 302, headers: ["Location": "/final"]) }
        server.route("/final") { request, writer in writer.respond(status: 200, text: request.header("X-Stamp") ?? "none") }

        let network = makeNetwork(limit: 1)
        let before = Recorder()
        network.observers = [before]
        network.interceptors = [Stamp(name: "old")]

        let held = expectation(description: "held")
        network.schedule(Request<Data>.get(server.url("/hold"))) { _ in held.fulfill() }
        // Queued behind /hold (the limit is 1): it has not started when the settings change.
        let queued = expectation(description: "queued")
        let queuedResult = Locked<Result<Data, any Error>?>(nil)
        network.schedule(Request<Data>.get(server.url("/moved"))) { result in
            queuedResult.withLock { $0 = result }
            queued.fulfill()
        }

        let after = Recorder()
        network.observers = [after]
        network.interceptors = [Stamp(name: "new")]
        network.followsRedirects = false
        release.signal()
        wait(for: [held, queued], timeout: 20)

        // The old settings: followed, stamped "old", heard by the old observer only.
        XCTAssertEqual(try queuedResult.current?.get(), Data("old".utf8))
        // (Sorted: /hold's last event and /moved's first may come in either order.)
        XCTAssertEqual(before.events.current.sorted(), ["receive 200", "receive 200", "send /final", "send /hold", "send /moved"])
        XCTAssertEqual(after.events.current, [])

        // Scheduled after the change: not followed, stamped "new", heard by the new observer.
        let later = network.scheduleSynchronously(Request<Data>.get(server.url("/moved")), timeout: 20)
        guard case let .httpStatus(response)? = networkError(later) else { return XCTFail("expected the 302 itself, got \(later)") }
        XCTAssertEqual(response.statusCode, 302)
        XCTAssertEqual(after.events.current, ["send /moved", "receive 302"])
        XCTAssertEqual(before.events.current.count, 5, "the old observer hears nothing more")
        XCTAssertEqual(server.receivedRequests.last?.header("X-Stamp"), "new")
    }

    /// The settings are one value, replaced on each change: two changes made at once from two
    /// threads must both stay (a change that read the value, then replaced it with its own copy,
    /// would drop the other's).
    func testChangesMadeAtOnceFromManyThreadsAreAllKept() {
        let network = makeNetwork()
        let limit = DecompressionLimit(ratio: 7, minimumSize: 3)
        for round in 1...200 {
            DispatchQueue.concurrentPerform(iterations: 5) { lane in
                switch lane {
                case 0: network.maximumRedirects = round
                case 1: network.followsRedirects = round.isMultiple(of: 2)
                case 2: network.decompressesResponses = !round.isMultiple(of: 2)
                case 3: network.decompressionLimit = round.isMultiple(of: 2) ? limit : .standard
                default: network.retryPolicy = round.isMultiple(of: 2) ? .none : RetryPolicy(maxAttempts: round + 1)
                }
            }
            XCTAssertEqual(network.maximumRedirects, round)
            XCTAssertEqual(network.followsRedirects, round.isMultiple(of: 2))
            XCTAssertEqual(network.decompressesResponses, !round.isMultiple(of: 2))
            XCTAssertEqual(network.decompressionLimit, round.isMultiple(of: 2) ? limit : .standard)
            XCTAssertEqual(network.retryPolicy.maxAttempts, round.isMultiple(of: 2) ? 1 : round + 1)
        }
    }
}
