import Courier
import Foundation

/// Where one transfer's output goes — stdout or a file — and the head before the body when
/// `-i` or `-I` asks for it, as curl writes them: the head and the body to the same place.
///
/// A file is named when the response arrives (`-J` may take the server's name) and opened at
/// the first byte for it, so that a transfer refused before any output (`-f`, a refused
/// connection) leaves no file; an empty body of a successful transfer still makes one.
///
/// Used from the one thread that runs the transfer, hence no lock.
final class TransferOutput {
    private let target: OutputTarget
    private let mode: OutputFile.Mode
    private let printer: BodyPrinter
    /// The file, once named.
    private(set) var file: OutputFile?

    init(_ target: OutputTarget, mode: OutputFile.Mode, console: Console, noBuffer: Bool) {
        self.target = target
        self.mode = mode
        self.printer = BodyPrinter(console: console, noBuffer: noBuffer)
        if let path = target.knownPath, !Self.usesHeaderName(target) { file = OutputFile(path, mode: mode) }
    }

    /// The file written, for `%{filename_effective}`; `nil` for stdout.
    var filePath: String? { file?.path ?? target.knownPath }

    /// The response head: names the file (`-J`) and writes `head` (`-i`, `-I`) first.
    func begin(_ response: HTTPResponse, head: Data?) throws(Failure) {
        switch target {
        case .stdout:
            try printer.begin(response, head: head)
        case .file, .remoteName:
            if file == nil { file = OutputFile(try Self.path(for: target, response: response), mode: modeFor(response)) }
            if let head { try file?.write(head) }
        }
    }

    /// A chunk of the body.
    func write(_ chunk: Data) throws {
        if let file {
            try file.write(chunk)
        } else {
            try printer.write(chunk)
        }
    }

    /// The transfer is over. A successful one makes its file even when the body was empty, as
    /// curl does, but for a `304 Not Modified` (`--etag-compare`: the file there is current).
    func finish(succeeded: Bool, status: Int?) throws {
        if let file {
            if succeeded, status != 304 { try file.open() }
            try file.close()
        } else if succeeded {
            try printer.finish()
        } else {
            printer.flushAfterFailure()
        }
    }

    /// Before a retry: a file goes back to where this transfer started writing it.
    func rewind() throws(Failure) {
        try file?.rewind()
    }

    /// `--remove-on-error`.
    func removeFile() {
        file?.removeIfWritten()
    }

    private func modeFor(_ response: HTTPResponse) -> OutputFile.Mode {
        var mode = self.mode
        // A name from the server must not replace a file that is there (curl refuses too).
        if Self.usesHeaderName(target), HeaderFileName.name(in: response) != nil { mode.refusesExisting = true }
        return mode
    }

    private static func usesHeaderName(_ target: OutputTarget) -> Bool {
        if case .remoteName(_, _, true) = target { return true }
        return false
    }

    /// The file for `target`: `-o`'s path, or `-O`'s name (the server's with `-J` when it sends one).
    private static func path(for target: OutputTarget, response: HTTPResponse) throws(Failure) -> String {
        switch target {
        case .stdout:
            preconditionFailure("stdout has no path")
        case let .file(path):
            return path
        case let .remoteName(name, directory, usesHeaderName):
            if usesHeaderName, let served = HeaderFileName.name(in: response) {
                return OutputTarget.path(served, in: directory)
            }
            guard !name.isEmpty else { throw RemoteName.missing }
            return OutputTarget.path(name, in: directory)
        }
    }
}

/// `-O` of a URL with no file name in its path (`http://host/`): curl's "Remote file name has
/// no length!", a write error (23), before anything is sent.
enum RemoteName {
    static let missing = Failure(.writeError, "the URL has no file name for -O (its path ends in /); use -o FILE")
}
