import Foundation

/// One URL of a request command and where its body goes: curl runs each URL of the line as a
/// transfer of its own, with the same options.
struct TransferPlan: Sendable, Equatable {
    /// Its position on the line, from 0 (`%{urlnum}`).
    let index: Int
    let url: URL
    /// The URL as typed (`%{url}`).
    let urlText: String
    let output: OutputTarget
}

/// Where a transfer's body (and, with `-i` or `-I`, its head) goes.
enum OutputTarget: Sendable, Equatable {
    case stdout
    /// `-o FILE`, after `--output-dir`.
    case file(String)
    /// `-O`: the URL's file name (`name`, empty when the URL has none), after `--output-dir`
    /// (`directory`); with `-J` (`usesHeaderName`), the server's `Content-Disposition` name wins.
    case remoteName(String, directory: String?, usesHeaderName: Bool)

    /// The file, when the output is one whose name is known before the response.
    var knownPath: String? {
        switch self {
        case .stdout: return nil
        case let .file(path): return path
        case let .remoteName(name, directory, _): return name.isEmpty ? nil : Self.path(name, in: directory)
        }
    }

    /// `name` inside `directory`, as curl joins `--output-dir` and a file name.
    static func path(_ name: String, in directory: String?) -> String {
        guard let directory, !directory.isEmpty else { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The file name `-O` takes from a URL: the last segment of its path, as written (no
    /// percent-decoding, as curl 7.88), the query left out; empty when the path ends in `/`.
    static func remoteName(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        return path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }
}
