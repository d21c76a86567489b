import Foundation

/// Holds server handlers until `size` of them are waiting at once, then lets that group go and
/// starts a new one. A test that wants to see requests overlap waits for it here instead of
/// pacing the server and hoping the client is fast enough to overlap them.
final class Rendezvous: @unchecked Sendable {
    // `condition` guards both vars; @unchecked Sendable is sound because nothing else is mutable.
    private let condition = NSCondition()
    private let size: Int
    private var waiting = 0
    private var generation = 0

    init(size: Int) {
        self.size = size
    }

    /// Waits until `size` callers have arrived (this one included) or `timeout` passes; returns
    /// whether the group filled. A timed-out caller leaves its group.
    @discardableResult
    func arrive(timeout: TimeInterval = 10) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let mine = generation
        waiting += 1
        if waiting == size {
            waiting = 0
            generation += 1
            condition.broadcast()
            return true
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        // Loop because condition waits can wake spuriously.
        while generation == mine {
            if !condition.wait(until: deadline) {
                if generation == mine { waiting -= 1 }
                return generation != mine
            }
        }
        return true
    }
}
