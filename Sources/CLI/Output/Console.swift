import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// stdout and stderr, written with `write(2)` (no buffering to flush before `exit`), under one
/// lock so that progress redraws and messages from several threads never interleave mid-line.
final class Console: Sendable {
    static let shared = Console()

    let stdoutIsTerminal: Bool
    let stderrIsTerminal: Bool
    /// The descriptors written to, behind one lock so that one write is whole before the next
    /// begins. (A state is needed: a zero-sized one would share its address with the mutex, see
    /// ``Locked``.)
    private let streams = Locked((out: STDOUT_FILENO, err: STDERR_FILENO))

    init(stdoutIsTerminal: Bool = isatty(STDOUT_FILENO) != 0, stderrIsTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
    }

    /// Writes body bytes to stdout.
    /// - Throws: ``Failure`` with ``ExitCode/writeError`` when stdout is closed or full.
    func writeOut(_ data: Data) throws(Failure) {
        let failure = streams.withLock { PartialFile.writeAll(data, to: $0.out) }
        if let failure {
            throw Failure(.writeError, "cannot write to stdout: \(String(cString: strerror(failure.code.rawValue)))")
        }
    }

    /// Writes to stderr; a failure to report on stderr cannot itself be reported, so it is ignored.
    func writeError(_ data: Data) {
        streams.withLock { _ = PartialFile.writeAll(data, to: $0.err) }
    }

    /// `courier: <text>` on its own line of stderr. On a terminal the line is cleared first, so
    /// the `^C` the terminal echoes on Ctrl-C does not run into the message. Messages name files
    /// and URLs, which may hold anything: their control characters are shown escaped.
    func message(_ text: String) {
        let prefix = stderrIsTerminal ? "\r\u{1B}[2K" : ""
        writeError(Data("\(prefix)courier: \(TerminalText.escaped(text))\n".utf8))
    }

    /// `Warning: <text>` on its own line of stderr: curl's own warnings, in curl's words, for the
    /// lines a script written for curl may look for.
    func warning(_ text: String) {
        let prefix = stderrIsTerminal ? "\r\u{1B}[2K" : ""
        writeError(Data("\(prefix)Warning: \(TerminalText.escaped(text))\n".utf8))
    }

    /// The terminal's size (columns, rows), read at each draw so a resized window is followed;
    /// 80 × 24 when it cannot be told.
    var stderrSize: (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        return (80, 24)
    }
}
