import Foundation

/// The `.partial` files of downloads that have ended (a cancel, a deadline, a failure) and are
/// being closed on another thread: their last block flushed, their sidecar updated, their lock
/// released (see ``DownloadBody/abandon(then:)``).
///
/// A download of the same destination that starts in that moment (a "pause" button's cancel
/// followed at once by a "resume") finds the file still locked. It is not a second writer, only
/// early: it waits for the close, which takes a block's write at most, instead of being refused
/// with ``DownloadFiles/busyError``. A file locked by a download still running, or by another
/// process, is refused at once as before.
final class ClosingPartials: @unchecked Sendable {  // `paths` is read and written only under `condition`.
    static let shared = ClosingPartials()

    private let condition = NSCondition()
    private var paths: [String: Int] = [:]

    /// A download that wrote `path` has ended and is closing it.
    func begin(_ path: String) {
        condition.lock()
        paths[path, default: 0] += 1
        condition.unlock()
    }

    /// The file at `path` is closed (and its lock released).
    func end(_ path: String) {
        condition.lock()
        if let count = paths[path], count > 1 { paths[path] = count - 1 } else { paths[path] = nil }
        condition.broadcast()
        condition.unlock()
    }

    /// Whether `path` was being closed, once it is closed (waiting at most `timeout` seconds);
    /// `false` at once when no ended download is closing it.
    func waitUntilClosed(_ path: String, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        guard paths[path] != nil else { return false }
        while paths[path] != nil {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}
