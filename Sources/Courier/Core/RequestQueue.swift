import Dispatch

/// Enforces ``Network/maximumConcurrentRequests``: hands out slots in FIFO order and starts the
/// transfers that get one.
///
/// Starts run on one serial queue. That keeps FIFO order exact, and keeps URLSession's task
/// creation and `resume()` (both of which can block briefly on Linux) off the callers' threads.
final class RequestQueue: @unchecked Sendable {
    private struct State {
        var limit: Int
        var active = 0
        /// Waiting transfers; `head` is the index of the oldest, so taking one is O(1).
        var pending: [Transfer] = []
        var head = 0
    }

    private let state: Locked<State>
    let startQueue: DispatchQueue

    init(limit: Int, startQueue: DispatchQueue) {
        self.state = Locked(State(limit: max(1, limit)))
        self.startQueue = startQueue
    }

    var limit: Int {
        get { state.withLock { $0.limit } }
        set {
            state.withLock { $0.limit = max(1, newValue) }
            pump()
        }
    }

    func enqueue(_ transfer: Transfer) {
        state.withLock { $0.pending.append(transfer) }
        pump()
    }

    /// Gives a slot back (a transfer ended) and starts whatever may run now.
    func release() {
        state.withLock { $0.active -= 1 }
        pump()
    }

    /// Takes as many waiting transfers as there are free slots and starts them, oldest first.
    private func pump() {
        while let next = takeNext() {
            startQueue.async {
                // A transfer cancelled while it waited declines to start; its slot goes back.
                if !next.start() { self.release() }
            }
        }
    }

    private func takeNext() -> Transfer? {
        state.withLock { state in
            guard state.active < state.limit, state.head < state.pending.count else { return nil }
            let next = state.pending[state.head]
            state.head += 1
            // Compact now and then so the array does not grow for ever.
            if state.head > 64, state.head * 2 > state.pending.count {
                state.pending.removeFirst(state.head)
                state.head = 0
            }
            state.active += 1
            return next
        }
    }
}
