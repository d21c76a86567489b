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

    // Confined to the delegate queue.
    private var lastReportTime: [TransferProgress.Direction: UInt64] = [:]
    private var lastReportedBytes: [TransferProgress.Direction: Int64] = [:]

    // Confined to the handler queue (a serial queue): set when the completion runs, after
    // which no event may reach the caller.
    private var completionDelivered = false

    init(_ handler: @escaping (TransferProgress) -> Void) {
        self.handler = UncheckedSendable(handler)
    }

    /// Offers an event; it goes out if the interval has passed since the last one, or if
    /// `force` is set (the final event) and it says something new.
    func update(_ progress: TransferProgress, force: Bool = false, via transfer: Transfer) {
        let direction = progress.direction
        if let last = lastReportedBytes[direction], progress.completedBytes <= last {
            return  // nothing new; also keeps the events monotonic
        }
        let now = DispatchTime.now().uptimeNanoseconds
        if !force, let last = lastReportTime[direction], now &- last < Self.interval { return }
        lastReportTime[direction] = now
        lastReportedBytes[direction] = progress.completedBytes
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
