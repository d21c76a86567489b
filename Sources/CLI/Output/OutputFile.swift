import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file `-o` or `-O` names, opened as curl opens its output: when the first byte for it
/// arrives (so a refused request or `-f` leaves no file), following links (`-o /dev/stdout`, a
/// link of the user's), a regular file emptied first, or appended to when resuming (`-C`), a
/// device or FIFO written as it is.
///
/// Used from the one thread that runs the transfer (`streamSynchronously`'s closures), hence no lock.
final class OutputFile {
    /// How the file is opened.
    struct Mode: Equatable {
        /// `-C`: bytes go after what the file holds.
        var appends = false
        /// `--create-dirs`: the folders of the path are made first.
        var createsDirectories = false
        /// `-J`: a name the server chose never replaces an existing file.
        var refusesExisting = false
        /// `--no-clobber`: an existing file is kept and the body goes to the first of
        /// `FILE.1` … `FILE.99` that does not exist, as curl names it.
        var keepsExisting = false
    }

    /// The file written: `--no-clobber` may choose another name when it opens.
    private(set) var path: String
    let mode: Mode
    private var descriptor: Int32 = -1
    /// The file's size when this transfer opened it: a retry truncates back to it.
    private var sizeAtOpen: off_t = 0
    /// Whether this transfer created or wrote the file (what `--remove-on-error` removes).
    private(set) var wasOpened = false

    init(_ path: String, mode: Mode = Mode()) {
        self.path = path
        self.mode = mode
    }

    deinit {
        if descriptor >= 0 { _ = posixClose(descriptor) }
    }

    /// Opens the file (once). Blocks until a FIFO has a reader, as any writer does. `O_NOCTTY`:
    /// a terminal reached through a link never becomes courier's controlling terminal.
    func open() throws(Failure) {
        guard descriptor < 0 else { return }
        if mode.createsDirectories { try createFolders() }
        var flags = O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC
        if mode.refusesExisting { flags |= O_EXCL }
        flags |= mode.appends ? O_APPEND : O_TRUNC
        var fd = posixOpen(path, flags | (mode.keepsExisting && !mode.appends ? O_EXCL : 0), 0o666)
        if fd < 0, errno == EEXIST, mode.keepsExisting, !mode.appends {
            let base = path
            for number in 1..<100 where fd < 0 && errno == EEXIST {
                path = "\(base).\(number)"
                fd = posixOpen(path, flags | O_EXCL, 0o666)
            }
            if fd < 0, errno == EEXIST {
                path = base
                throw Failure(.writeError, "--no-clobber: \(base) and \(base).1 to \(base).99 all exist")
            }
        }
        guard fd >= 0 else {
            if errno == EEXIST, mode.refusesExisting {
                throw Failure(.writeError, "refusing to overwrite \(path), named by the server's Content-Disposition: the file exists")
            }
            throw failure(errno)
        }
        descriptor = fd
        wasOpened = true
        sizeAtOpen = mode.appends ? lseek(fd, 0, SEEK_END) : 0
    }

    /// Writes all of `data`, opening the file first if needed.
    func write(_ data: Data) throws(Failure) {
        try open()
        if let error = PartialFile.writeAll(data, to: descriptor) { throw failure(error.code.rawValue) }
    }

    /// Back to where this transfer started writing, for a retry (as curl truncates its output).
    func rewind() throws(Failure) {
        guard descriptor >= 0 else { return }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        if ftruncate(descriptor, sizeAtOpen) != 0 { throw failure(errno) }
        _ = lseek(descriptor, sizeAtOpen, SEEK_SET)
    }

    /// Closes the file if open; a failure here can be a deferred write error, so it is reported.
    func close() throws(Failure) {
        guard descriptor >= 0 else { return }
        defer { descriptor = -1 }
        if posixClose(descriptor) != 0 { throw failure(errno) }
    }

    /// `--remove-on-error`: the file goes, if this transfer made or wrote it and it is a regular file.
    func removeIfWritten() {
        try? close()
        var status = stat()
        guard wasOpened, lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        unlink(path)
    }

    private func createFolders() throws(Failure) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure(.writeError, "cannot create the folder \(folder.path): \(Failure.describe(error))")
        }
    }

    private func failure(_ code: Int32) -> Failure {
        Failure(.writeError, "\(path): \(String(cString: strerror(code)))")
    }
}

/// `open(2)` and `close(2)`, named so as not to clash with the methods above.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.open(path, flags, mode)
    #else
    Darwin.open(path, flags, mode)
    #endif
}

private func posixClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
