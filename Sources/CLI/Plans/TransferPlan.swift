import Courier
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
    /// What it sends: the plan's body, or on a line of several uploads its own (``Upload``).
    var upload: Upload = .plan

    /// curl pairs each `-T` with one URL of the line, in order (a glob in the file name is one
    /// upload per file, each to every URL the URL's glob stands for); a URL past the last `-T`
    /// sends no body. On such a line each transfer says what it sends.
    enum Upload: Sendable, Equatable {
        /// The plan's method and body (a line with one URL and one `-T`, or none).
        case plan
        /// This file, with `PUT` (or `-X`'s method).
        case file(URL)
        /// `-T -`: stdin's bytes, read once for the line.
        case standardInput(Data)
        /// Nothing: `GET` (or `-X`'s method, `HEAD` with `-I`).
        case none
    }

    /// The method this transfer sends.
    func method(in plan: RequestPlan) -> HTTPMethod {
        switch upload {
        case .plan: return plan.method
        case .file, .standardInput: return plan.uploadMethod
        case .none: return plan.methodWithoutUpload
        }
    }

    /// The body this transfer sends (a file sent with no `Content-Type`, as curl's `-T`).
    func body(in plan: RequestPlan) -> RequestBody? {
        switch upload {
        case .plan: return plan.body
        case let .file(url): return .untypedFile(url)
        case let .standardInput(data): return .data(data, contentType: "")
        case .none: return nil
        }
    }

    /// The bytes of that body, for `%{size_upload}`.
    func bodySize(in plan: RequestPlan) -> Int64 {
        switch upload {
        case .plan: return plan.bodySize
        case let .file(url): return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        case let .standardInput(data): return Int64(data.count)
        case .none: return 0
        }
    }

    /// A file to send that cannot be read when the transfer's turn comes: curl's read error
    /// (exit 26), that transfer failing and the ones before it done, as curl opens each file then.
    var unreadableUpload: Failure? {
        guard case let .file(url) = upload else { return nil }
        do throws(Failure) {
            try RequestBodyInput.checkReadable(url)
            return nil
        } catch {
            return error
        }
    }
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
