import Courier
import Foundation

/// `-D FILE`: every response head of the command, redirects included, written as received
/// (see ``HeadText``); `-D -` writes them to stdout, before each body.
///
/// The file is opened (emptied) at the first head, and kept open for the heads of every later
/// transfer of the line, as curl keeps it. Used from one thread at a time (the transfers that
/// share it run in turn, or each `-Z` worker writes whole heads through its lock).
final class HeaderDump: Sendable {
    private let path: String
    private let console: Console
    private let file: Locked<OutputFile?>

    init(_ path: String, console: Console) {
        self.path = path
        self.console = console
        file = Locked(path == "-" ? nil : OutputFile(path))
    }

    /// `-D -`: the heads go to stdout.
    var isStdout: Bool { path == "-" }

    func write(_ head: Data) throws(Failure) {
        guard path != "-" else {
            try console.writeOut(head)
            return
        }
        let result: Result<Void, Failure> = file.withLock { file in
            do throws(Failure) {
                try file?.write(head)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    func close() {
        file.withLock { try? $0?.close() }
    }
}
