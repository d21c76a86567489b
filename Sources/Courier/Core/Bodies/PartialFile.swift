import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file a download writes to — its `.partial` file, a temporary file, or a device or
/// FIFO written directly — owning the descriptor.
///
/// Every way of opening it is safe in a folder someone else can write to: symbolic links are
/// never followed (`O_NOFOLLOW`), new files are created with `O_CREAT | O_EXCL` (so nothing
/// planted at the path is ever opened), and what was opened is checked through the descriptor
/// (`fstat`), never through a second look at the path, which could have changed in between.
package final class PartialFile: Sendable {
    /// The path it was opened at, for errors.
    let url: URL
    /// Its size when it was opened: where a resumed download continues.
    let sizeAtOpen: Int64
    /// Device and inode, to tell later whether the path still names this file.
    private let identity: (device: UInt64, inode: UInt64)
    /// A FIFO, whose reader may go away mid-download.
    private let isFIFO: Bool
    /// `-1` once closed. Under a lock so that `close` may come from any thread.
    private let descriptor: Locked<Int32>

    private init(descriptor: Int32, url: URL, status: stat) {
        self.url = url
        self.descriptor = Locked(descriptor)
        self.sizeAtOpen = Int64(status.st_size)
        self.identity = (UInt64(truncatingIfNeeded: status.st_dev), UInt64(status.st_ino))
        self.isFIFO = status.st_mode & S_IFMT == S_IFIFO
        #if canImport(Darwin)
        if isFIFO { _ = fcntl(descriptor, F_SETNOSIGPIPE, 1) }
        #endif
    }

    deinit {
        // A backstop only: every path closes explicitly.
        let fd = descriptor.current
        if fd >= 0 { _ = systemClose(fd) }
    }

    // MARK: - Opening

    /// Creates a new file at `url`, failing if anything (a file, a link) is already there.
    /// `mode` is applied exactly (not through the umask); without it the file gets the usual
    /// `0666` less the umask.
    static func create(at url: URL, mode: mode_t? = nil) throws(NetworkError) -> PartialFile {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ?? 0o666)
        guard fd >= 0 else { throw .fileSystem(url, POSIXError.current) }
        let file = try adopt(fd, url: url) { _ in nil }
        if let mode { try file.setMode(mode) }
        return file
    }

    /// Creates a new file with an unguessable name in `folder`, for contents written whole and
    /// then renamed into place; `mode` as for ``create(at:mode:)``.
    static func createUnique(in folder: URL, mode: mode_t?) throws(NetworkError) -> PartialFile {
        // The name stays short whatever the destination's is: a long one would not fit.
        let name = ".courier-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() + ".tmp"
        return try create(at: folder.appendingPathComponent(name), mode: mode)
    }

    /// Opens the existing regular file at `url` to resume writing it, or returns `nil` when
    /// there is none or what is there cannot be trusted: a symbolic link, anything but a
    /// regular file, or a file with other hard links (which might be someone else's file).
    static func openForResume(at url: URL) -> PartialFile? {
        // Non-blocking so that a FIFO planted at the path cannot hang the open (it is then
        // refused); the flag changes nothing for a regular file.
        let fd = open(url.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        return try? adopt(fd, url: url) { status in
            status.isRegular && status.st_nlink == 1 ? nil : POSIXError(.EPERM)
        }
    }

    /// Opens the existing device or FIFO at `url` for writing as it is: no truncation, no link
    /// followed. Blocks until a FIFO has a reader, as any writer does.
    static func openSpecial(at url: URL) throws(NetworkError) -> PartialFile {
        let fd = open(url.path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileSystem(url, POSIXError.current) }
        // Replaced by a regular file or a folder since it was checked: not what was meant.
        return try adopt(fd, url: url) { $0.isSpecial ? nil : POSIXError(.EINVAL) }
    }

    /// Reads the whole regular file at `url` (at most `limit` bytes) without following a link;
    /// `nil` if there is none, or it is anything else, or it is larger.
    static func readRegularFile(at url: URL, limit: Int) -> Data? {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { _ = systemClose(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.isRegular, status.st_size <= limit else { return nil }
        var data = Data(count: Int(status.st_size) + 1)
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit else { return nil }
        return data.prefix(filled)
    }

    /// Wraps an opened descriptor once `problem` (given its `fstat`) finds nothing wrong;
    /// otherwise closes it and throws.
    private static func adopt(_ fd: Int32, url: URL, problem: (stat) -> POSIXError?) throws(NetworkError) -> PartialFile {
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = POSIXError.current
            _ = systemClose(fd)
            throw .fileSystem(url, error)
        }
        if let error = problem(status) {
            _ = systemClose(fd)
            throw .fileSystem(url, error)
        }
        return PartialFile(descriptor: fd, url: url, status: status)
    }

    // MARK: - Writing

    /// Writes all of `data` at the current offset.
    func write(_ data: Data) throws(NetworkError) {
        let failure: POSIXError? = descriptor.withLock { fd in
            Self.withoutSIGPIPE(isFIFO) { Self.writeAll(data, to: fd) }
        }
        if let failure { throw .fileSystem(url, failure) }
    }

    /// `write(2)` until all of `data` is written; the error, if any. Also writes the body of
    /// `streamSynchronously(_:to:)` to its file handle, and the `courier` tool's stdout and stderr.
    package static func writeAll(_ data: Data, to fd: Int32) -> POSIXError? {
        data.withUnsafeBytes { raw -> POSIXError? in
            guard var pointer = raw.baseAddress else { return nil }
            var left = raw.count
            while left > 0 {
                let count = systemWrite(fd, pointer, left)
                if count < 0 {
                    if errno == EINTR { continue }
                    return POSIXError.current
                }
                pointer += count
                left -= count
            }
            return nil
        }
    }

    /// Runs `body` (a write) so that a FIFO whose reader has gone makes it fail with `EPIPE`
    /// instead of raising `SIGPIPE`, which would end the process: the signal is blocked on this
    /// thread for the write, and one the write raised is taken before it is unblocked. (On
    /// Darwin the descriptor is marked `F_SETNOSIGPIPE` instead.) Nothing changes for other
    /// files, nor for the process's own handling of the signal. Also guards the writes of
    /// `streamSynchronously(_:to:)` to a pipe or a socket.
    static func withoutSIGPIPE<T>(_ active: Bool, _ body: () -> T) -> T {
        #if os(Linux)
        guard active else { return body() }
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var pending = sigset_t()
        sigpending(&pending)
        let alreadyPending = sigismember(&pending, SIGPIPE) == 1
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let result = body()
        if !alreadyPending {
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var noWait = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &noWait)
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        return result
        #else
        return body()
        #endif
    }

    /// Cuts the file to `offset` bytes and continues writing there.
    func truncate(at offset: Int64) throws(NetworkError) {
        let failure = descriptor.withLock { fd -> POSIXError? in
            ftruncate(fd, off_t(offset)) == 0 && lseek(fd, off_t(offset), SEEK_SET) >= 0 ? nil : .current
        }
        if let failure { throw .fileSystem(url, failure) }
    }

    /// Sets the permission bits (exactly: the umask does not apply).
    func setMode(_ mode: mode_t) throws(NetworkError) {
        let failure = descriptor.withLock { fchmod($0, mode) == 0 ? nil : POSIXError.current }
        if let failure { throw .fileSystem(url, failure) }
    }

    /// The file's size now.
    func currentSize() -> Int64? {
        descriptor.withLock { fd in
            var status = stat()
            return fstat(fd, &status) == 0 ? Int64(status.st_size) : nil
        }
    }

    /// Closes the descriptor (once; later calls do nothing). A failure here can be a deferred
    /// write error, so it is reported.
    func close() throws(NetworkError) {
        let failure = descriptor.withLock { fd -> POSIXError? in
            defer { fd = -1 }
            return fd < 0 || systemClose(fd) == 0 ? nil : .current
        }
        if let failure { throw .fileSystem(url, failure) }
    }

    /// Takes an exclusive advisory lock (`flock(2)`) on the file without waiting: `false` when
    /// another open file (another download, in this process or another) holds it. A file system
    /// that has no locks counts as locked: downloads there go on as they did before locks existed.
    /// The lock goes with the last descriptor of this open file.
    func tryLock() -> Bool {
        descriptor.withLock { fd in
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                if errno == EINTR { continue }
                return errno != EWOULDBLOCK
            }
            return true
        }
    }

    /// Closes the descriptor, reporting a deferred write error as ``close()`` does, while a
    /// duplicate of it keeps the file's lock until `whileLocked` (a rename) has run.
    func close<T>(whileLocked: () throws(NetworkError) -> T) throws(NetworkError) -> T {
        let holder = descriptor.withLock { $0 < 0 ? -1 : fcntl($0, F_DUPFD_CLOEXEC, 0) }
        defer { if holder >= 0 { _ = systemClose(holder) } }
        try close()
        return try whileLocked()
    }

    /// Whether `url` names this very file (not a link, nor another file put in its place).
    func isStill(at url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && UInt64(truncatingIfNeeded: status.st_dev) == identity.device
            && UInt64(status.st_ino) == identity.inode
    }
}

extension stat {
    /// A regular file.
    var isRegular: Bool { st_mode & S_IFMT == S_IFREG }
    /// A character or block device, or a FIFO: written as it is, never replaced.
    var isSpecial: Bool {
        let type = st_mode & S_IFMT
        return type == S_IFCHR || type == S_IFBLK || type == S_IFIFO
    }
}

extension POSIXError {
    /// The error `errno` holds now.
    static var current: POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}

/// `close(2)` and `write(2)`, named so as not to clash with the methods above.
private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
