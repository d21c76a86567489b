import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file `-o` names when it is a link (`/dev/stdout`, a link the user made): opened as curl
/// opens its output, links followed, a regular file truncated, a device or FIFO written as it is.
///
/// Used from the one thread that runs the request (`streamSynchronously`'s closures), hence no lock.
final class OutputFile {
    let url: URL
    private var descriptor: Int32 = -1

    init(_ url: URL) {
        self.url = url
    }

    deinit {
        if descriptor >= 0 { _ = posixClose(descriptor) }
    }

    /// Opens the file (once): created if missing, emptied if a regular file. Blocks until a
    /// FIFO has a reader, as any writer does. `O_NOCTTY`: a terminal reached through the link
    /// never becomes courier's controlling terminal.
    func open() throws(Failure) {
        guard descriptor < 0 else { return }
        let fd = posixOpen(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure(errno) }
        descriptor = fd
    }

    /// Writes all of `data`, opening the file first if needed.
    func write(_ data: Data) throws(Failure) {
        try open()
        if let error = PartialFile.writeAll(data, to: descriptor) { throw failure(error.code.rawValue) }
    }

    /// Closes the file if open; a failure here can be a deferred write error, so it is reported.
    func close() throws(Failure) {
        guard descriptor >= 0 else { return }
        defer { descriptor = -1 }
        if posixClose(descriptor) != 0 { throw failure(errno) }
    }

    private func failure(_ code: Int32) -> Failure {
        Failure(.writeError, "\(url.path): \(String(cString: strerror(code)))")
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
