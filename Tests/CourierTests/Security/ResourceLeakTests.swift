import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A long-running service creates and drops `Network`s and runs requests for days: nothing a
/// finished request or a dropped `Network` used may stay behind.
final class ResourceLeakTests: XCTestCase {
    /// Open file descriptors of this process.
    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    func testDroppedNetworksReleaseTheirSockets() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/self/fd"), "needs /proc")
        let server = try makeServer().withStandardRoutes()
        // One Network first, so that what the first one loads once (libcurl, certificates) is
        // in the baseline.
        try runOneRequest(on: server)
        let baseline = Self.openDescriptors()
        for _ in 0..<40 { try runOneRequest(on: server) }
        // A dropped Network lets its session go once its last transfer has ended; that happens
        // on Courier's queues just after the completion, so wait (bounded) for it.
        let released = waitUntil(timeout: 20) { Self.openDescriptors() <= baseline + 4 }
        XCTAssertTrue(released, "open descriptors: \(Self.openDescriptors()), baseline \(baseline)")
    }

    private func runOneRequest(on server: TestServer) throws {
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "leak.callbacks"))
        let result = network.scheduleSynchronously(Request<Data>.get(server.url("/hello")), timeout: 10)
        XCTAssertNotNil(try? result.get())
    }

    func testFinishedRequestsAreReleasedByALiveNetwork() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 2)
        // Each completion captures an object; once the completion has run, the Network must
        // not keep it (nor the request's body) alive.
        let tracker = DeallocationTracker()
        for _ in 0..<20 {
            let sentinel = tracker.make()
            let body = Data(count: 256 << 10)
            let done = expectation(description: "completion")
            network.schedule(Request<Data>(method: .post, url: server.url("/echo"), body: .data(body, contentType: "application/octet-stream"))) { result in
                _ = sentinel
                XCTAssertEqual(try? result.get().count, body.count)
                done.fulfill()
            }
            wait(for: [done], timeout: 10)
        }
        let released = waitUntil(timeout: 10) { tracker.alive == 0 }
        XCTAssertTrue(released, "\(tracker.alive) of 20 completions still retained after they ran")
    }
}

extension ResourceLeakTests {
    /// Requests that end early (cancelled, or past their deadline, while the server holds them)
    /// are released too: their deadline timers hold them until the ending cancels the timer.
    func testCancelledAndTimedOutRequestsAreReleasedByALiveNetwork() throws {
        let server = try makeServer().withStandardRoutes()
        let gate = holdRequests(at: "/held", on: server)
        let network = makeNetwork(limit: 4)
        let tracker = DeallocationTracker()
        for index in 0..<12 {
            let sentinel = tracker.make()
            var request = Request<Data>.get(server.url("/held"))
            let timesOut = index.isMultiple(of: 3)
            request.timeout = timesOut ? 0.2 : 30
            let done = expectation(description: "completion")
            let task = network.schedule(request) { result in
                _ = sentinel
                guard case let .failure(error as NetworkError) = result else { return XCTFail("expected an error, got \(result)") }
                if timesOut {
                    guard case .timedOut = error else { return XCTFail("expected timedOut, got \(error)") }
                } else {
                    guard case .cancelled = error else { return XCTFail("expected cancelled, got \(error)") }
                }
                done.fulfill()
            }
            if !timesOut { task.cancel() }
            wait(for: [done], timeout: 10)
        }
        gate.open()
        let released = waitUntil(timeout: 10) { tracker.alive == 0 }
        XCTAssertTrue(released, "\(tracker.alive) of 12 completions still retained after they ran")
    }
}

/// Counts objects made by ``make()`` that have not been deallocated yet.
final class DeallocationTracker: Sendable {
    private let count = Locked(0)

    final class Sentinel: Sendable {
        let tracker: DeallocationTracker
        init(_ tracker: DeallocationTracker) { self.tracker = tracker; tracker.count.withLock { $0 += 1 } }
        deinit { tracker.count.withLock { $0 -= 1 } }
    }

    func make() -> Sentinel { Sentinel(self) }
    var alive: Int { count.withLock { $0 } }
}
