import Courier
import Foundation

/// `--etag-compare FILE` and `--etag-save FILE`: a file holding one `ETag`, so that a script
/// fetches a resource again only when it changed.
enum ETagFile {
    /// The ETag in `path` (its first line), sent as `If-None-Match`. A file that cannot be read
    /// is curl's read error (exit 26), before any request.
    static func read(_ path: String) throws(Failure) -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Failure(.readError, "cannot read the --etag-compare file \(path): \(Failure.describe(error))")
        }
        let line = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? ""
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// Makes `path` an empty file before a transfer, as curl opens it then; `false` when it
    /// cannot be made (a folder that does not exist), and curl skips the transfer.
    static func create(_ path: String) -> Bool {
        FileManager.default.createFile(atPath: path, contents: nil)
    }

    /// Writes the response's `ETag` and a newline to `path`, as curl does; a response without
    /// one (or with an empty one) leaves the file as ``create(_:)`` left it, empty.
    static func save(_ response: HTTPResponse, to path: String) throws(Failure) {
        guard let etag = response.headers["ETag"]?.trimmingCharacters(in: .whitespaces), !etag.isEmpty else { return }
        do {
            try Data((etag + "\n").utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw Failure(.writeError, "cannot save the ETag to \(path): \(Failure.describe(error))")
        }
    }
}
