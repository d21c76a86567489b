@testable import Courier
import Foundation
import XCTest

/// ``Latch``, what a blocking call waits on: opened once, waited for with or without a deadline.
final class LatchTests: XCTestCase {
    func testAWaiterWakesWhenAnotherThreadOpensItAndSeesWhatWasWritten() {
        let latch = Latch()
        let written = Locked(0)
        let woke = expectation(description: "the waiter woke")
        let seen = Locked<(opened: Bool, value: Int)?>(nil)
        Thread {
            // A deadline far enough to overflow a nanosecond sum, were it added as it is.
            let opened = latch.wait(until: .now() + 1_000_000_000)
            seen.withLock { $0 = (opened, written.current) }
            woke.fulfill()
        }.start()
        XCTAssertFalse(latch.isOpen)
        latch.open { written.withLock { $0 = 42 } }
        wait(for: [woke], timeout: 10)
        XCTAssertEqual(seen.current?.opened, true, "the wait ended without the latch open")
        XCTAssertEqual(seen.current?.value, 42)
        XCTAssertTrue(latch.isOpen)
    }

    func testAnOpenLatchDoesNotWait() {
        let latch = Latch()
        latch.open {}
        XCTAssertTrue(latch.wait(until: .distantFuture))
        XCTAssertTrue(latch.wait(until: .now()), "a passed deadline on an open latch is still open")
    }

    func testADeadlineThatPassesLeavesItClosed() {
        let latch = Latch()
        XCTAssertFalse(latch.wait(until: .now()), "a passed deadline waited")
        let start = DispatchTime.now()
        XCTAssertFalse(latch.wait(until: start + 0.05))
        // It waited for the deadline, not less (the monotonic clock of both sides agrees).
        XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds, 50_000_000)
        XCTAssertFalse(latch.isOpen)
    }

    func testAWaiterWithADeadlineIsWokenByTheOpenNotByTheDeadline() {
        let latch = Latch()
        let woke = expectation(description: "the waiter woke")
        let opened = Locked(false)
        Thread {
            opened.withLock { $0 = latch.wait(until: .now() + 60) }
            woke.fulfill()
        }.start()
        latch.open {}
        // Well before the 60 s deadline: the open woke it.
        wait(for: [woke], timeout: 10)
        XCTAssertTrue(opened.current)
    }
}
