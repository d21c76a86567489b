import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transfers of one ``Network``: every one not yet ended (for ``Network/cancelAll()``), and
/// the running ones by their transport task (for routing delegate calls), unless the task
/// routes itself (``TransportTask/routesItself``: the curl engine's).
///
/// On Linux per-task delegates are never called, so the one session delegate looks the transfer
/// up here. A task that no longer routes to a transfer has ended: its late callbacks are dropped.
///
/// A task ended early (cancelled, timed out) may still be streaming: on Linux URLSession keeps
/// delivering after `cancel()`, sometimes to the end of the body. Such a task is *draining*: its
/// connection is still busy, so it keeps its concurrency slot until URLSession reports it
/// complete, which keeps ``Network/maximumConcurrentRequests`` true as the server sees it.
final class TransferRegistry: Sendable {
    private enum Entry {
        case active(any ScheduledTransfer)
        case draining(SlotRelease)
    }

    private struct State {
        var live: [ObjectIdentifier: any ScheduledTransfer] = [:]
        var byTask: [ObjectIdentifier: Entry] = [:]
        var closed = false
    }

    private let state = Locked(State())

    /// Registers a new transfer; `false` once the registry is closed.
    func add(_ transfer: any ScheduledTransfer) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.live[ObjectIdentifier(transfer)] = transfer
            return true
        }
    }

    /// Refuses every later ``add(_:)`` and returns the transfers live at this instant. One lock
    /// decides both, so no transfer can slip in between the check and the list.
    func close() -> [any ScheduledTransfer] {
        state.withLock { state in
            state.closed = true
            return Array(state.live.values)
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Routes `task`'s events to `transfer` (the task not resumed yet): through this registry,
    /// and straight from the task where it keeps its transfer (``TransportTask/deliverEvents(to:)``).
    func attach(_ task: any TransportTask, to transfer: any ScheduledTransfer) {
        task.deliverEvents(to: transfer)
        guard !task.routesItself else { return }
        state.withLock { $0.byTask[ObjectIdentifier(task)] = .active(transfer) }
    }

    /// The transfer a task's callbacks go to, or `nil` once it has ended.
    func transfer(for task: any TransportTask) -> (any ScheduledTransfer)? {
        state.withLock { state in
            if case let .active(transfer)? = state.byTask[ObjectIdentifier(task)] { return transfer }
            return nil
        }
    }

    /// Stops routing callbacks of `task` (it completed or its transfer ended).
    func detach(_ task: any TransportTask) {
        task.stopDeliveringEvents()
        guard !task.routesItself else { return }
        state.withLock { _ = $0.byTask.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// Stops routing `task`'s callbacks but keeps its slot until ``taskDidComplete(_:)``, or
    /// until `fallback` seconds have passed on `timers`, should that report never come (`nil`:
    /// the transport always reports it, ``Transport/confirmsCancels``).
    ///
    /// This runs inside `cancel()`: arming the timer (the Network's timer queue, which costs less
    /// than a global queue's `asyncAfter`) was still half of the time a cancel took to return.
    ///
    /// A task that has already reported its end has nothing left to drain, and its slot goes
    /// back at once. That happens when the cancel races the end: the transport has taken the
    /// task's entry out (``complete(_:outcome:metrics:)``) and is telling the transfer, which
    /// has not heard yet and ends by the cancel. A draining entry put back then would wait for
    /// a report already made, and the slot would be lost: for good on the curl engine, which
    /// has no fallback timer.
    func drain(_ task: any TransportTask, fallback: TimeInterval?, on timers: TimerQueue, release: @escaping @Sendable () -> Void) {
        let slot = SlotRelease(release)
        let key = ObjectIdentifier(task)
        let routesItself = task.routesItself
        let stillRunning: Bool
        if routesItself {
            stillRunning = task.keepUntilEnd(slot)
        } else {
            task.stopDeliveringEvents()
            stillRunning = state.withLock { state -> Bool in
                guard case .active? = state.byTask[key] else { return false }
                state.byTask[key] = .draining(slot)
                return true
            }
        }
        guard stillRunning else { return slot.release() }
        guard let fallback else { return }
        _ = timers.schedule(after: fallback) { [weak self] in
            if !routesItself { self?.detach(task: key, ifDraining: slot) }
            slot.release()
        }
    }

    /// The transport reports `task` over, with how it ended (its failure classified already) and
    /// the metrics it measured, if any: its transfer hears of it, or, if the transfer has ended
    /// already, a slot kept for the task is free now. (A task that ``TransportTask/routesItself``
    /// does both itself and never comes here.)
    ///
    /// The entry is looked up and taken out under one lock: as a lookup and a later removal, a
    /// cancel could drain the task in between, and the removal would drop the draining entry
    /// with the slot it was keeping.
    func complete(_ task: any TransportTask, outcome: TransportOutcome, metrics: TransferMetrics? = nil) {
        let entry = state.withLock { $0.byTask.removeValue(forKey: ObjectIdentifier(task)) }
        switch entry {
        case let .active(transfer)?: transfer.didComplete(outcome, metrics: metrics)
        case let .draining(slot)?: slot.release()
        case nil: break
        }
    }

    /// The transport reports `task` complete: if it was draining, its slot is free now.
    func taskDidComplete(_ task: any TransportTask) {
        let entry = state.withLock { $0.byTask.removeValue(forKey: ObjectIdentifier(task)) }
        if case let .draining(slot)? = entry { slot.release() }
    }

    private func detach(task: ObjectIdentifier, ifDraining slot: SlotRelease) {
        state.withLock { state in
            if case let .draining(current)? = state.byTask[task], current === slot { state.byTask.removeValue(forKey: task) }
        }
    }

    /// Forgets an ended transfer; returns how many are still live.
    @discardableResult
    func remove(_ transfer: any ScheduledTransfer) -> Int {
        state.withLock { state in
            state.live.removeValue(forKey: ObjectIdentifier(transfer))
            return state.live.count
        }
    }

    var liveTransfers: [any ScheduledTransfer] {
        state.withLock { Array($0.live.values) }
    }

    var liveCount: Int { state.withLock { $0.live.count } }
}

/// Gives a concurrency slot back exactly once, whichever comes first: the task's completion or
/// the fallback timer.
final class SlotRelease: Sendable {
    private let action: @Sendable () -> Void
    // A Bool, not the optional closure under the lock: `Locked<(@Sendable () -> Void)?>` is a
    // type no other path uses, and building its metadata (once a process, by demangling its
    // name) was 60% of the first `cancel()`'s instructions.
    private let released = Locked(false)

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    func release() {
        let first = released.withLock { released -> Bool in
            defer { released = true }
            return !released
        }
        if first { action() }
    }
}
