@testable import Courier
import Dispatch
import XCTest

/// The one timer a Network keeps for all deadlines and backoffs.
final class TimerQueueTests: XCTestCase {
    private let queue = DispatchQueue(label: "test.timers")

    func testActionsRunInDeadlineOrderAndCancelledOnesNever() {
        let timers = TimerQueue(queue: queue)
        let order = Locked<[Int]>([])
        let ran = expectation(description: "three actions ran")
        ran.expectedFulfillmentCount = 3
        // Scheduled out of order; the second one is cancelled.
        for (index, delay) in [(3, 0.06), (0, 0.02), (2, 0.04), (1, 0.03)] {
            let token = timers.schedule(after: delay) {
                order.withLock { $0.append(index) }
                ran.fulfill()
            }
            if index == 1, let token { timers.cancel(token) }
        }
        wait(for: [ran], timeout: 5)
        XCTAssertEqual(order.current, [0, 2, 3])
    }

    func testAnEarlierEntryRearmsTheTimer() {
        let timers = TimerQueue(queue: queue)
        let early = expectation(description: "the early action ran")
        _ = timers.schedule(after: 3600) { XCTFail("an hour-long deadline fired") }
        _ = timers.schedule(after: 0.01) { early.fulfill() }
        wait(for: [early], timeout: 5)
    }

    func testInfiniteOrInvalidIntervalsAreNeverDue() {
        let timers = TimerQueue(queue: queue)
        XCTAssertNil(timers.schedule(after: .infinity) {})
        XCTAssertNil(timers.schedule(after: .nan) {})
        XCTAssertNil(timers.schedule(after: -1) {})
        XCTAssertNil(timers.schedule(after: 1e300) {})
    }

    func testManyCancelledEntriesDoNotPileUp() {
        let timers = TimerQueue(queue: queue)
        // Like a long run of requests that all end before their 60 s deadline.
        for _ in 0..<10_000 {
            if let token = timers.schedule(after: 60, {}) { timers.cancel(token) }
        }
        XCTAssertLessThanOrEqual(timers.pendingEntries, 130, "the heap is rebuilt once it is mostly cancelled entries")
        let ran = expectation(description: "a live entry still runs")
        _ = timers.schedule(after: 0.01) { ran.fulfill() }
        wait(for: [ran], timeout: 5)
    }

    func testConcurrentReArmsNeverLeaveADueEntryWaiting() {
        // Entries due at once scheduled from many threads while far ones come and go: every
        // immediate one must run. (Re-arms made outside the lock could land in the wrong order
        // and leave the timer set for an hour away.)
        let timers = TimerQueue(queue: queue)
        let count = 2_000
        let ran = expectation(description: "every immediate action ran")
        ran.expectedFulfillmentCount = count
        DispatchQueue.concurrentPerform(iterations: count) { index in
            if let far = timers.schedule(after: 3600, {}), index.isMultiple(of: 2) { timers.cancel(far) }
            _ = timers.schedule(after: 0) { ran.fulfill() }
        }
        wait(for: [ran], timeout: 10)
    }
}
