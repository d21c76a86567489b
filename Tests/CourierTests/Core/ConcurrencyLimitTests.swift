import Courier
import Foundation
import XCTest

/// `maximumConcurrentRequests`, as the server sees it.
final class ConcurrencyLimitTests: XCTestCase {
    func testNeverMoreThanTheLimitInFlight() throws {
        let server = try makeServer()
        let gate = holdRequests(at: "/gated", on: server, text: "ok")
        let network = makeNetwork(limit: 3)
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 12
        for _ in 0..<12 {
            network.schedule(Request<Data>.get(server.url("/gated"))) { _ in done.fulfill() }
        }
        XCTAssertTrue(waitUntil { server.currentConcurrentRequests == 3 })
        gate.open()
        wait(for: [done], timeout: 20)
        XCTAssertEqual(server.requestCount, 12)
        XCTAssertEqual(server.maxConcurrentRequests, 3)
    }

    func testQueuedRequestsStartInFIFOOrder() throws {
        let server = try makeServer()
        let gate = holdRequests(at: "/first", on: server, text: "first")
        server.route("/n") { _, writer in writer.respond(status: 200, text: "n") }
        let network = makeNetwork(limit: 1)
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 21
        network.schedule(Request<Data>.get(server.url("/first"))) { _ in done.fulfill() }
        for index in 0..<20 {
            network.schedule(Request<Data>.get(server.url("/n?i=\(index)"))) { _ in done.fulfill() }
        }
        gate.open()
        wait(for: [done], timeout: 20)
        let order = server.receivedRequests.filter { $0.path == "/n" }.compactMap { $0.queryItems["i"].flatMap(Int.init) }
        XCTAssertEqual(order, Array(0..<20))
    }

    func testRaisingTheLimitStartsWaitingRequestsAndLoweringItHolds() throws {
        let server = try makeServer()
        let gate = holdRequests(at: "/gated", on: server, text: "ok")
        let network = makeNetwork(limit: 1)
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 8
        for _ in 0..<8 {
            network.schedule(Request<Data>.get(server.url("/gated"))) { _ in done.fulfill() }
        }
        XCTAssertTrue(waitUntil { server.currentConcurrentRequests == 1 })
        network.maximumConcurrentRequests = 4
        XCTAssertEqual(network.maximumConcurrentRequests, 4)
        XCTAssertTrue(waitUntil { server.currentConcurrentRequests == 4 })
        network.maximumConcurrentRequests = 2
        gate.open()
        wait(for: [done], timeout: 20)
        XCTAssertEqual(server.maxConcurrentRequests, 4)
        XCTAssertEqual(server.requestCount, 8)
    }

    func testLimitIsAtLeastOne() {
        let network = makeNetwork(limit: 0)
        XCTAssertEqual(network.maximumConcurrentRequests, 1)
        network.maximumConcurrentRequests = -3
        XCTAssertEqual(network.maximumConcurrentRequests, 1)
    }
}
