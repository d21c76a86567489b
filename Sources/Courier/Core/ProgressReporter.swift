import Dispatch

/// Turns delegate byte counts into throttled, ordered progress events for one transfer.
///
/// Counting happens on the session's delegate queue (the only caller of ``update(_:force:)``),
/// so per-chunk work is a subtraction and a clock read: a slow delegate makes URLSession queue
/// chunks in memory, and on Linux nothing pushes back. Events are handed to the transfer's serial
/// handler queue, which keeps them in order and puts the completion after the last one.
final class ProgressReporter: @unchecked Sendable {
    /// At most one event per interval per direction: 20 a second.
    static let interval: UInt64 = 50_000_000

    private let handler: UncheckedSendable<(TransferProgress) -> Void>

    /// What was last sent for one direction; confined to the delegate queue.
    private struct Last {
        var time: UInt64 = 0
        var bytes: Int64 = -1
    }

    private var lastUpload = Last()
    private var lastDownload = Last()

    // Confined to the handler queue (a serial queue): set when the completion runs, after
    // which no event may reach the caller.
    private var completionDelivered = false

    init(_ handler: @escaping (TransferProgress) -> Void) {
        self.handler = UncheckedSendable(handler)
    }

    /// Offers an event; it goes out if the interval has passed since the last one, or if
    /// `force` is set (the final event) and it says something new.
    func update(_ progress: TransferProgress, force: Bool = false, via transfer: Transfer) {
        var last = progress.direction == .upload ? lastUpload : lastDownload
        // Nothing new: dropping it also keeps the events monotonic.
        guard progress.completedBytes > last.bytes else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if !force, last.bytes >= 0, now &- last.time < Self.interval { return }
        last = Last(time: now, bytes: progress.completedBytes)
        if progress.direction == .upload { lastUpload = last } else { lastDownload = last }
        transfer.onHandlerQueue { [self] in
            // Bytes that arrive after a cancel are dropped, and nothing follows the completion.
            guard !completionDelivered, !transfer.wasCancelled else { return }
            handler.value(progress)
        }
    }

    /// Called on the handler queue just before the completion runs.
    func markCompletionDelivered() {
        completionDelivered = true
    }
}
