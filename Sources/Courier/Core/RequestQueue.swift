import Dispatch

/// Enforces ``Network/maximumConcurrentRequests``: hands out slots in FIFO order and starts the
/// transfers that get one.
///
/// A transfer that gets a slot at once starts right there, on the thread that asked (the caller
/// of `schedule`, or the one that freed the slot): every thread hop costs a wake-up, which is
/// most of a small request's overhead. Two kinds of start go through the serial start queue
/// instead: those asked for on the session's delegate queue (which must never wait for
/// URLSession's own thread, as task creation may: see BoundedDelegateQueue), and those whose
/// preparation is heavy (a multipart body written to disk).
final class RequestQueue: Sendable {
    private struct State {
        var limit: Int
        var active = 0
        /// Waiting transfers, oldest at `head`, so taking one is O(1). A taken entry is cleared
        /// at once: a started transfer must not be kept alive by the queue (it holds the caller's
        /// completion and body, and the core, which would keep the whole session alive).
        var pending: [(any ScheduledTransfer)?] = []
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

    func enqueue(_ transfer: any ScheduledTransfer) {
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
        let onDelegateQueue = DispatchQueue.getSpecific(key: NetworkCore.delegateQueueKey) != nil
        while let next = takeNext() {
            if onDelegateQueue || next.startsOffThread {
                startQueue.async {
                    // A transfer cancelled while it waited declines to start; its slot goes back.
                    if !next.start() { self.release() }
                }
            } else if !next.start() {
                state.withLock { $0.active -= 1 }
            }
        }
    }

    private func takeNext() -> (any ScheduledTransfer)? {
        state.withLock { state in
            guard state.active < state.limit, state.head < state.pending.count,
                  let next = state.pending[state.head] else { return nil }
            state.pending[state.head] = nil
            state.head += 1
            // Compact now and then so the array does not grow for ever: at once when it has
            // drained, else once the cleared prefix is long and more than half of it.
            if state.head == state.pending.count {
                state.pending.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head > 64, state.head * 2 > state.pending.count {
                state.pending.removeFirst(state.head)
                state.head = 0
            }
            state.active += 1
            return next
        }
    }
}
