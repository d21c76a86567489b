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

    /// A cancel that lands while the task is reporting its own end must give the slot back
    /// once, whichever of the two the registry sees first. With a limit of 1, a slot kept for a
    /// task that had already ended would hold every later request in the queue for ever.
    func testACancelRacingTheEndOfItsTaskGivesTheSlotBack() throws {
        try raceTheEnd(endedByTheRace: { if case .failure(NetworkError.cancelled) = $0 { true } else { false } }) { network, url, round, completion in
            let task = network.schedule(Request<Data>.get(url), completion: completion)
            // Cancelled after 0 to 400 µs, spun rather than slept (a sleep's wake-up is coarser
            // than the race): a loopback request takes about that long, so some cancels land
            // before its end, some after, and some while the task reports it. Every 20th waits
            // 20 ms, long enough for the request to end first even under Thread Sanitizer.
            let delay = round % 20 == 19 ? 20_000_000 : UInt64((round * 37) % 400) * 1_000
            DispatchQueue.global().async {
                let start = DispatchTime.now().uptimeNanoseconds
                while DispatchTime.now().uptimeNanoseconds - start < delay {}
                task.cancel()
            }
        }
    }

    /// The same race with the request's own deadline doing the cancelling: deadlines of 1 to
    /// 400 µs end some requests before their end, some after, some while it is reported.
    func testADeadlineRacingTheEndOfItsTaskGivesTheSlotBack() throws {
        try raceTheEnd(endedByTheRace: { if case .failure(NetworkError.timedOut) = $0 { true } else { false } }) { network, url, round, completion in
            network.schedule(Request<Data>(url: url, timeout: Self.racingDeadline(round)), completion: completion)
        }
    }

    /// Runs 400 requests one after the other on a `Network` with a limit of 1, each scheduled by
    /// `schedule` (given the network, the URL, the round and the completion to pass on), and
    /// counts those the race ended. A request queued behind a lost slot never completes (a
    /// deadline counts from the start), so the first round left waiting stops the test rather
    /// than each one timing out; then one plain request must still run, and both kinds of
    /// ending must have happened.
    private func raceTheEnd(endedByTheRace: (Result<Data, any Error>) -> Bool,
                            schedule: (Network, URL, Int, @escaping @Sendable (Result<Data, any Error>) -> Void) -> Void) throws {
        let server = try makeServer()
        server.route("/n") { _, writer in writer.respond(status: 200, text: "n") }
        let network = makeNetwork(limit: 1)
        // FoundationNetworking itself can trap on a cancel that lands as its task ends (see
        // CancellationTests.testExactlyOnceUnderRandomCancels), so only the curl engine races
        // every request; TransferRegistryTests covers both orders without an engine.
        try XCTSkipIf(network.engine == .urlSession, "a cancel racing a URLSession task's end can trap inside FoundationNetworking")
        let rounds = Int(ProcessInfo.processInfo.environment["COURIER_RACE_ROUNDS"] ?? "") ?? 400
        var raced = 0
        for round in 0..<rounds {
            let done = expectation(description: "round \(round)")
            let outcome = Box<Result<Data, any Error>>()
            schedule(network, server.url("/n"), round) { result in
                outcome.value = result
                done.fulfill()
            }
            wait(for: [done], timeout: 10)
            guard let result = outcome.value else { return XCTFail("round \(round) waited for a slot that never came back") }
            if endedByTheRace(result) { raced += 1 }
        }
        XCTAssertNotNil(try result(of: Request<Data>.get(server.url("/n")), on: network)?.get(), "a slot was lost")
        XCTAssertGreaterThan(raced, 0)
        XCTAssertLessThan(raced, rounds)
    }

    /// The deadline race again, in blocking calls, which on the curl engine run their transfers
    /// on the calling thread. A blocking call waits for a slot with no deadline running (the
    /// deadline counts from the start), so each call is bounded by its own wait limit: after a
    /// lost slot the next one would give up after that wait instead of hanging the suite.
    func testABlockingCallWhoseDeadlineRacesTheEndGivesTheSlotBack() throws {
        let server = try makeServer()
        server.route("/n") { _, writer in writer.respond(status: 200, text: "n") }
        let network = makeNetwork(limit: 1)
        try XCTSkipIf(network.engine == .urlSession, "a cancel racing a URLSession task's end can trap inside FoundationNetworking")
        var timedOut = 0
        let rounds = 400
        for round in 0..<rounds {
            let started = DispatchTime.now().uptimeNanoseconds
            let result = network.scheduleSynchronously(Request<Data>(url: server.url("/n"), timeout: Self.racingDeadline(round)), timeout: 5)
            if DispatchTime.now().uptimeNanoseconds - started > 4_000_000_000 {
                return XCTFail("round \(round) waited for a slot that never came back")
            }
            if case .failure(NetworkError.timedOut) = result { timedOut += 1 }
        }
        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>.get(server.url("/n")), timeout: 5).get())
        XCTAssertGreaterThan(timedOut, 0)
        XCTAssertLessThan(timedOut, rounds)
    }

    /// 1 to 400 µs, about a loopback request's length; every 20th round 10 s, so that some
    /// requests surely end by themselves, even under Thread Sanitizer.
    private static func racingDeadline(_ round: Int) -> TimeInterval {
        round % 20 == 19 ? 10 : Double((round * 37) % 400 + 1) / 1_000_000
    }

    func testLimitIsAtLeastOne() {
        let network = makeNetwork(limit: 0)
        XCTAssertEqual(network.maximumConcurrentRequests, 1)
        network.maximumConcurrentRequests = -3
        XCTAssertEqual(network.maximumConcurrentRequests, 1)
    }
}
