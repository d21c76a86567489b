/// How far a transfer has got.
///
/// Courier computes progress itself from the delegate calls (on Linux `URLSessionTask.progress`
/// stays at zero). Updates are throttled to at most ~20 per second, never go backwards, and a
/// final update is sent when the last byte has arrived.
public struct TransferProgress: Sendable, Hashable {
    /// Which way the bytes are moving.
    public enum Direction: Sendable, Hashable {
        /// Request body bytes being sent.
        case upload
        /// Response body bytes being received.
        case download
    }

    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The expected total, or `nil` when the server did not say (chunked or compressed bodies).
    public var totalBytes: Int64?
    /// Which way the bytes are moving.
    public var direction: Direction

    /// The transfer this value reports on, when Courier made it for a progress handler.
    var transfer: TransferCancellation?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?, direction: Direction = .download) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.direction = direction
    }

    /// Cancels the transfer this progress reports on, as ``NetworkTask/cancel()`` would: the
    /// completion (or the blocking call's result, or the async call's error) is
    /// ``NetworkError/cancelled``, and a download keeps its partial file to resume from.
    ///
    /// For a progress handler, in every convention, the blocking and async ones included, where
    /// no ``NetworkTask`` is at hand (or not yet, when the first event comes):
    ///
    /// ```swift
    /// network.download(request, to: destination) { progress in
    ///     if (progress.fractionCompleted ?? 0) >= 0.4 { progress.cancelTransfer() }
    /// } completion: { print($0) }
    /// ```
    ///
    /// A value made with ``init(completedBytes:totalBytes:direction:)`` cancels nothing.
    public func cancelTransfer() {
        transfer?.cancel()
    }

    /// Equal when the counts and the direction are: which transfer reported them does not count.
    public static func == (lhs: TransferProgress, rhs: TransferProgress) -> Bool {
        lhs.completedBytes == rhs.completedBytes && lhs.totalBytes == rhs.totalBytes && lhs.direction == rhs.direction
    }

    /// Hashes the counts and the direction, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(completedBytes)
        hasher.combine(totalBytes)
        hasher.combine(direction)
    }

    /// `completedBytes / totalBytes` in `0...1`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return totalBytes == 0 ? 1 : nil }
        // Clamped both ways: the values may be made by hand, a negative count included.
        return min(1, max(0, Double(completedBytes) / Double(totalBytes)))
    }
}

/// A transfer's cancel, handed to its progress handler inside each ``TransferProgress``. Weak: a
/// progress value kept after its transfer has ended keeps nothing alive.
final class TransferCancellation: Sendable {
    private let cancelTransfer: @Sendable () -> Void

    init(_ cancel: @escaping @Sendable () -> Void) {
        self.cancelTransfer = cancel
    }

    func cancel() {
        cancelTransfer()
    }
}
