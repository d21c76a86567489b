import Dispatch

/// Every deadline and backoff of one `Network`, on a single Dispatch timer.
///
/// A `DispatchSourceTimer` per request costs a round trip through Dispatch's manager thread to
/// arm it and another to cancel it: measured on the curl engine, that was a tenth of a small
/// request's CPU. Here arming is a heap insertion under a lock, and cancelling removes the action
/// only; the one real timer is re-armed (under the same lock, so re-arms cannot land out of
/// order) only when a new entry is due sooner than the earliest one it waits for. A request that
/// ends before its deadline (almost all of them) never touches it.
///
/// Cancelled entries stay in the heap until they reach its top (or until the heap is rebuilt,
/// once it holds twice as many entries as live actions), so memory stays bounded.
final class TimerQueue: Sendable {
    /// Identifies one scheduled action, for ``cancel(_:)``.
    struct Token: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    fileprivate struct Entry {
        let due: UInt64
        let id: UInt64
    }

    /// A scheduled closure. Wrapped so that the dictionary stores it as it is: a bare function
    /// type stored in a generic container is re-wrapped in a thunk, an allocation per schedule.
    fileprivate struct Action {
        let run: @Sendable () -> Void
    }

    fileprivate struct State {
        var heap: [Entry] = []
        var actions: [UInt64: Action] = [:]
        var nextID: UInt64 = 0
        /// When the Dispatch timer fires next (`nil`: not armed).
        var armedFor: UInt64?
    }

    private let state = Locked(State())
    // Dispatch sources are thread-safe, but Dispatch does not mark them Sendable.
    private let timer: UncheckedSendable<any DispatchSourceTimer>

    /// A timer queue whose actions run on `queue`.
    init(queue: DispatchQueue) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        self.timer = UncheckedSendable(timer)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
    }

    deinit {
        timer.value.cancel()
    }

    /// Runs `action` on the queue after `interval` seconds, unless cancelled first. `nil` for an
    /// infinite or invalid interval (never due).
    func schedule(after interval: Double, _ action: @escaping @Sendable () -> Void) -> Token? {
        guard interval.isFinite, interval >= 0 else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        // Beyond ~290 years the sum would overflow: such a deadline is never due.
        guard interval < 9e9 else { return nil }
        return schedule(atUptime: now &+ UInt64(interval * 1e9), action)
    }

    /// Runs `action` on the queue once `DispatchTime`'s uptime reaches `due` nanoseconds (at
    /// once if it has), unless cancelled first.
    func schedule(atUptime due: UInt64, _ action: @escaping @Sendable () -> Void) -> Token? {
        state.withLock { state -> Token in
            state.nextID += 1
            let id = state.nextID
            state.actions[id] = Action(run: action)
            state.push(Entry(due: due, id: id))
            if state.armedFor.map({ due < $0 }) ?? true {
                state.armedFor = due
                // Under the lock: two re-arms made outside it could land in the other order and
                // leave the timer set for the later time (a backoff of 0 s then waited a minute).
                arm(for: due)
            }
            return Token(id: id)
        }
    }

    /// Forgets a scheduled action; nothing happens if it has run or was cancelled already.
    func cancel(_ token: Token) {
        state.withLock { state in
            state.actions.removeValue(forKey: token.id)
            if state.heap.count > 64, state.heap.count > 2 * state.actions.count { state.rebuild() }
        }
    }

    /// Entries in the heap, cancelled ones included (for tests).
    var pendingEntries: Int { state.withLock { $0.heap.count } }

    private func arm(for due: UInt64) {
        timer.value.schedule(deadline: DispatchTime(uptimeNanoseconds: due), leeway: .milliseconds(1))
    }

    /// Runs what is due (outside the lock) and re-arms for the next live entry.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [Action] in
            var due: [Action] = []
            while let top = state.heap.first, top.due <= now {
                state.popTop()
                if let action = state.actions.removeValue(forKey: top.id) { due.append(action) }
            }
            while let top = state.heap.first, state.actions[top.id] == nil { state.popTop() }
            state.armedFor = state.heap.first?.due
            if let next = state.armedFor { arm(for: next) }
            return due
        }
        for action in due { action.run() }
    }
}

extension TimerQueue.State {
    // A binary min-heap on `due`.

    fileprivate mutating func push(_ entry: TimerQueue.Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    fileprivate mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    /// Drops cancelled entries and restores the heap order.
    fileprivate mutating func rebuild() {
        let live = heap.filter { actions[$0.id] != nil }
        heap.removeAll(keepingCapacity: true)
        for entry in live { push(entry) }
    }
}
