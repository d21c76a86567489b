import Courier

/// `--max-filesize` for `-o`. The library limits the bodies it holds in memory
/// (``Network/maximumResponseSize``), not those it streams to disk, so the download's progress
/// is watched here and the request cancelled as soon as the announced size or the bytes
/// received pass the limit.
struct FileSizeGuard: Sendable {
    let limit: Int64?
    let network: Network
    private let tripped = Locked(false)

    init(limit: Int64?, network: Network) {
        self.limit = limit
        self.network = network
    }

    /// Whether the limit was passed (the request was then cancelled).
    var exceeded: Bool { tripped.current }

    func check(_ progress: TransferProgress) {
        guard let limit, progress.direction == .download, max(progress.completedBytes, progress.totalBytes ?? 0) > limit else { return }
        let first = tripped.withLock { tripped in
            defer { tripped = true }
            return !tripped
        }
        // The command runs one request on its own network: cancelling all of it cancels that one.
        if first { network.cancelAll() }
    }
}
