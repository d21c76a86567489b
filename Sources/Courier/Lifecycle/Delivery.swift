import Dispatch

/// Where and how one transfer's handlers run: its progress events in order, then its one
/// completion, on the queue the caller chose.
///
/// With progress, the handlers get a serial queue of their own (targeting the caller's queue),
/// so that events stay in order and the completion comes after the last of them even on a
/// concurrent queue. Progress events still queued when a cancel ends the transfer are dropped.
final class Delivery<Output: Sendable>: Sendable {
    private let target: CallbackTarget
    private let handlerQueue: DispatchQueue?
    private let completion: @Sendable (Result<Output, any Error>) -> Void
    private let reporter: ProgressReporter?
    /// Set when the transfer is cancelled: progress events not yet run are dropped.
    private let cancelled = Locked(false)

    init(target: CallbackTarget, progress: (@Sendable (TransferProgress) -> Void)?,
         completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        self.target = target
        self.completion = completion
        let handlerQueue = progress == nil ? nil : target.makeSerialQueue()
        self.handlerQueue = handlerQueue
        let cancelled = self.cancelled
        self.reporter = progress.map { handler in
            ProgressReporter(handler, queue: handlerQueue!, isCancelled: { cancelled.withLock { $0 } })
        }
    }

    /// Offers a progress event (throttled; see ``ProgressReporter``).
    func report(_ progress: TransferProgress, force: Bool) {
        reporter?.update(progress, force: force)
    }

    /// Drops progress events from now on (the transfer was cancelled).
    func markCancelled() {
        cancelled.withLock { $0 = true }
    }

    /// Runs the completion, after any progress event already queued.
    func complete(_ result: Result<Output, any Error>) {
        let reporter = self.reporter
        let completion = self.completion
        run {
            reporter?.markCompletionDelivered()
            completion(result)
        }
    }

    private func run(_ body: @escaping @Sendable () -> Void) {
        if let handlerQueue {
            handlerQueue.async(execute: body)
        } else if case let .queue(queue) = target {
            queue.async(execute: body)
        } else {
            body()
        }
    }
}
