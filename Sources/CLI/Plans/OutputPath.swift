import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A path the user named for the output (`-o FILE`), and where its links lead.
///
/// The library never follows a link at a download's destination or its `.partial` files: in a
/// folder others can write to, a planted link would make it write someone else's file. That
/// rule is for names Courier makes up itself (from the URL, for `download -d`). A path the user
/// typed is different: `-o /dev/stdout`, or a link of the user's own, means "write there", and
/// curl opens it following links. So does `courier`, deciding here what the link leads to.
enum OutputPath {
    /// Where a link leads, as `open(2)` would follow it.
    enum Target: Equatable {
        /// The path is not a link: the library's own rules apply.
        case notALink
        /// The link leads to this path, itself no link: an existing file, device or FIFO (the
        /// very one `open(2)` would reach), or nothing yet, where a dangling link points (curl
        /// creates the file there).
        case path(URL)
        /// The link leads to something with no path of its own: `/dev/stdout` on Linux is a link
        /// to `/proc/self/fd/1`, which names a pipe or a socket (`pipe:[1234]`), not a file.
        case unnamed
    }

    /// Links allowed in one chain, as Linux's `ELOOP` limit.
    private static let maximumLinks = 40

    /// Whether `url` is itself a symbolic link (not what it leads to).
    static func isLink(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// Follows the links at the end of `url`, one `readlink` at a time, to a path that is no
    /// link, and checks that it names what `open(2)` reaches through `url` (same device and
    /// inode): Linux's `/proc` links name pipes and sockets by something that is no path.
    static func target(of url: URL) -> Target {
        guard isLink(url) else { return .notALink }
        var current = url.path
        for _ in 0..<maximumLinks {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { break }
            guard let destination = readLink(current) else { return .unnamed }
            current = destination.hasPrefix("/")
                ? destination
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        var reached = stat()
        var named = stat()
        let namedExists = lstat(current, &named) == 0
        guard stat(url.path, &reached) == 0 else {
            // Dangling: nothing at the end of the chain yet; open(2) with O_CREAT would create it there.
            return errno == ENOENT && !namedExists ? .path(URL(fileURLWithPath: current).standardizedFileURL) : .unnamed
        }
        guard namedExists, named.st_mode & S_IFMT != S_IFLNK,
              named.st_dev == reached.st_dev, named.st_ino == reached.st_ino else { return .unnamed }
        return .path(URL(fileURLWithPath: current).standardizedFileURL)
    }

    /// What the link at `path` holds, or `nil`.
    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
