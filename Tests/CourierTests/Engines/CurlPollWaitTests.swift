@testable import Courier
import XCTest

/// ``CurlPollWait``: how long the curl loop may wait before it looks at libcurl again.
final class CurlPollWaitTests: XCTestCase {
    func testATurnThatChangedATransferLooksAgainSoon() {
        var wait = CurlPollWait()
        XCTAssertEqual(wait.milliseconds, CurlPollWait.longest, "a new loop waits the longest")
        wait.turnEnded(didWork: true, transfers: 3)
        XCTAssertEqual(wait.milliseconds, CurlPollWait.shortest)
    }

    func testIdleTurnsDoubleTheWaitUpToASecond() {
        var wait = CurlPollWait()
        wait.turnEnded(didWork: true, transfers: 1)
        var seen: [Int32] = []
        for _ in 0..<10 {
            wait.turnEnded(didWork: false, transfers: 1)
            seen.append(wait.milliseconds)
        }
        XCTAssertEqual(seen, [20, 40, 80, 160, 320, 640, 1000, 1000, 1000, 1000])
        // Work again: back to the shortest at once.
        wait.turnEnded(didWork: true, transfers: 1)
        XCTAssertEqual(wait.milliseconds, CurlPollWait.shortest)
    }

    func testALoopWithNoTransfersWaitsTheLongest() {
        var wait = CurlPollWait()
        // The turn that ended the last transfer did work, but nothing is left to stall.
        wait.turnEnded(didWork: true, transfers: 0)
        XCTAssertEqual(wait.milliseconds, CurlPollWait.longest)
    }
}
