import Foundation

/// A one-shot gate: handlers wait on it so a test decides exactly when a response proceeds,
/// instead of sleeping. Once opened it stays open for every present and future waiter.
///
/// Built on NSCondition rather than a semaphore because a semaphore wakes one waiter per
/// signal, while a gate must release any number of waiters with a single `open()`.
package final class Gate: @unchecked Sendable {
    // `condition` guards `opened`; @unchecked Sendable is sound because nothing else is mutable.
    private let condition = NSCondition()
    private var opened = false

    package init() {}

    /// Opens the gate and wakes every waiter. Calling it again does nothing.
    package func open() {
        condition.lock()
        opened = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether `open()` has been called.
    package var isOpen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return opened
    }

    /// Waits until the gate is opened or `timeout` seconds pass; returns whether it was opened.
    @discardableResult
    package func wait(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        // Loop because condition waits can wake spuriously.
        while !opened {
            if !condition.wait(until: deadline) { break }
        }
        return opened
    }
}
