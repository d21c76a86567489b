import Foundation
import XCTest

extension XCTestCase {
    /// Polls a condition driven by another thread (e.g. the server's view), bounded by `timeout`.
    /// The wait is on an expectation, not a fixed sleep: it returns as soon as the condition holds.
    func waitUntil(timeout: TimeInterval = 10, _ condition: @escaping @Sendable () -> Bool) -> Bool {
        let satisfied = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in condition() }, object: nil)
        return XCTWaiter().wait(for: [satisfied], timeout: timeout) == .completed
    }
}
