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
