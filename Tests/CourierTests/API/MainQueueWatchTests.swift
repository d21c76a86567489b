import Courier
import Foundation
import TestSupport
import XCTest

/// The script's mistake made loud: a completion bound for a main queue that the main thread
/// blocks is reported, once, and still runs once the queue is free.
final class MainQueueWatchTests: XCTestCase {
    func testACompletionStuckBehindABlockedMainThreadIsReportedAndStillRunsOnce() throws {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        let server = try makeServer().withStandardRoutes()
        let reported = DispatchSemaphore(value: 0)
        let reports = Box<[String]>([])
        let previous = Network.mainQueueWatch
        defer { Network.mainQueueWatch = previous }
        Network.mainQueueWatch = MainQueueWatch(patience: 0.2) { text in
            reports.mutate { $0?.append(text) }
            reported.signal()
        }
        let network = makeNetwork(callbackQueue: .main)
        let completions = Box<Int>(0)
        let done = expectation(description: "the completion, once the main queue runs")
        network.schedule(Request<Data>.get(server.url("/hello"))) { _ in
            completions.mutate { $0! += 1 }
            done.fulfill()
        }
        // The mistake: the main thread waits for a completion that is queued behind it.
        XCTAssertEqual(reported.wait(timeout: .now() + 30), .success, "the stall is reported")
        XCTAssertEqual(completions.value, 0, "the main queue has not run yet")
        let text = reports.value?.first ?? ""
        XCTAssertTrue(text.contains("waited") && text.contains("for the main queue"), text)
        XCTAssertTrue(text.contains("scheduleSynchronously") && text.contains("callbackQueue: .global()"), text)

        wait(for: [done], timeout: 10)
        XCTAssertEqual(completions.value, 1)
        XCTAssertEqual(reports.value?.count, 1, "one report for the stall")
    }

    func testTheWatchIsOnByDefaultAndWritesToStandardError() {
        XCTAssertNotNil(Network.mainQueueWatch)
        XCTAssertEqual(Network.mainQueueWatch?.patience, 5)
    }
}
