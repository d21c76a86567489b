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

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?, direction: Direction = .download) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.direction = direction
    }

    /// `completedBytes / totalBytes` in `0...1`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return totalBytes == 0 ? 1 : nil }
        // Clamped both ways: the values may be made by hand, a negative count included.
        return min(1, max(0, Double(completedBytes) / Double(totalBytes)))
    }
}
