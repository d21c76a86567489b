import Dispatch

/// Turns delegate byte counts into throttled, ordered progress events for one transfer.
///
/// Counting happens where the engine delivers events (the curl loop thread, or URLSession's
/// delegate queue), so per-chunk work is a comparison, a clock read and an uncontended lock. Events are handed to the transfer's serial handler queue (see
/// ``Delivery``), which keeps them in order and puts the completion after the last one.
///
/// Throttling keeps the leading edge (the first bytes show at once) *and* the trailing edge: an
/// event dropped because it came too soon is sent when the interval ends, unless a newer one
/// went out first. Without that, a transfer that stalls (a slow server, a paused peer) would
/// show a stale count for as long as the stall lasts.
final class ProgressReporter: Sendable {
    /// At most one event per interval per direction: 20 a second.
    static let interval: UInt64 = 50_000_000

    private let handler: @Sendable (TransferProgress) -> Void
    /// The transfer's serial handler queue.
    private let queue: DispatchQueue

    /// One direction's throttle.
    private struct Throttle {
        /// When the last event went out, and what it said (-1: nothing yet).
        var time: UInt64 = 0
        var bytes: Int64 = -1
        /// The newest event held back by the interval, sent when it ends.
        var held: TransferProgress?
        var flushScheduled = false

        /// How long until the next event may go out, or `nil` if it may go now.
        func remainingWait(at now: UInt64) -> UInt64? {
            guard bytes >= 0 else { return nil }
            let elapsed = now &- time
            return elapsed < ProgressReporter.interval ? ProgressReporter.interval - elapsed : nil
        }
    }

    private struct State {
        var upload = Throttle()
        var download = Throttle()

        /// Runs `body` on the throttle of `direction`.
        mutating func throttle<T>(_ direction: TransferProgress.Direction, _ body: (inout Throttle) -> T) -> T {
            switch direction {
            case .upload: return body(&upload)
            case .download: return body(&download)
            }
        }
    }

    // A lock rather than queue confinement because the trailing edge is sent from a timer.
    private let state = Locked(State())

    // Set when the transfer is cancelled (on the thread that ends it) or when the completion
    // runs (on the handler queue): from then on no event reaches the caller, and those still
    // queued are dropped.
    private let stopped = Locked(false)

    /// The transfer's cancel, put into every event so that the handler can cancel its own
    /// transfer (``TransferProgress/cancelTransfer()``). Set once, before the first event.
    private let cancellation = Locked<TransferCancellation?>(nil)

    init(_ handler: @escaping @Sendable (TransferProgress) -> Void, queue: DispatchQueue) {
        self.handler = handler
        self.queue = queue
    }

    /// Gives the events the transfer's cancel.
    func attach(_ cancel: TransferCancellation) {
        cancellation.withLock { $0 = cancel }
    }

    /// Offers an event; it goes out if the interval has passed since the last one, or if
    /// `force` is set (the final event) and it says something new. Otherwise it is held and
    /// goes out when the interval ends, unless a newer event replaces it.
    func update(_ progress: TransferProgress, force: Bool = false) {
        let flushDelay: UInt64? = state.withLock { $0.throttle(progress.direction) { throttle in
            // Nothing new: dropping it also keeps the events monotonic.
            guard progress.completedBytes > throttle.bytes else { return nil }
            let now = DispatchTime.now().uptimeNanoseconds
            if !force, let wait = throttle.remainingWait(at: now) {
                throttle.held = progress
                guard !throttle.flushScheduled else { return nil }
                throttle.flushScheduled = true
                return wait
            }
            send(progress, now: now, throttle: &throttle)
            return nil
        } }
        if let flushDelay { scheduleFlush(progress.direction, after: flushDelay) }
    }

    private func scheduleFlush(_ direction: TransferProgress.Direction, after delay: UInt64) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [self] in
            flush(direction)
        }
    }

    /// Sends the event held back during the interval that just ended, if nothing newer went out.
    /// If a regular event went out after this timer was armed, the interval restarted then: the
    /// timer is re-armed for the rest of it, so the spacing holds.
    private func flush(_ direction: TransferProgress.Direction) {
        let rearm: UInt64? = state.withLock { $0.throttle(direction) { throttle in
            let now = DispatchTime.now().uptimeNanoseconds
            if let wait = throttle.remainingWait(at: now) { return wait }
            throttle.flushScheduled = false
            guard let held = throttle.held, held.completedBytes > throttle.bytes else { return nil }
            send(held, now: now, throttle: &throttle)
            return nil
        } }
        if let rearm { scheduleFlush(direction, after: rearm) }
    }

    /// Records `progress` as sent and queues it for the caller. Called under the lock, so events
    /// reach the serial handler queue in the order they were decided; that queue exists whenever
    /// a reporter does, so nothing of the caller's runs under the lock.
    private func send(_ progress: TransferProgress, now: UInt64, throttle: inout Throttle) {
        throttle.time = now
        throttle.bytes = progress.completedBytes
        throttle.held = nil
        var progress = progress
        progress.transfer = cancellation.withLock { $0 }
        queue.async { [self, progress] in
            // Bytes that arrive after a cancel are dropped, and nothing follows the completion.
            guard !stopped.withLock({ $0 }) else { return }
            handler(progress)
        }
    }

    /// Drops progress events from now on: the transfer was cancelled.
    func markCancelled() {
        stopped.withLock { $0 = true }
    }

    /// Called on the handler queue just before the completion runs.
    func markCompletionDelivered() {
        stopped.withLock { $0 = true }
    }
}
