import Courier
import Foundation

/// What the command line asked for, as typed. Nothing here is checked against the command yet:
/// ``Invocation`` does that, so that every conflict is reported in one place.
struct Options: Sendable {
    /// The command; `get` when none is named.
    var command: Command = .request(.get)
    /// Whether the command was named, which decides the method for a body (`POST` by default).
    var commandIsExplicit = false
    /// The positional arguments after the command.
    var urls: [String] = []

    // Request description.
    var headers: [String] = []
    var user: String?
    var bearer: String?
    var data: [String] = []
    var json: String?
    var form: [String] = []
    var uploadFile: String?

    // Where the body goes.
    var output: String?
    var directory: String?
    /// `-d` is `--data` for requests (as in curl) and `--dir` for `download`; which one is only
    /// known once the command has been read, so the values wait here.
    var shortD: [String] = []
    var includeHeaders = false
    var noResume = false
    var noBuffer = false

    // Behaviour.
    var silent = false
    var fail = false
    var progress = false
    var timeout: TimeInterval?
    var retries = 0
    var maxConcurrent = 4

    var help = false
    var version = false
}

/// The first positional argument, when it names one.
enum Command: Equatable, Sendable {
    /// A single request; its body goes to stdout or to `-o FILE`.
    case request(HTTPMethod)
    /// One or many files saved to disk, in parallel, resumable.
    case download

    /// The command a word names, or `nil` (then the word is a URL).
    init?(name: String) {
        switch name {
        case "get": self = .request(.get)
        case "post": self = .request(.post)
        case "put": self = .request(.put)
        case "patch": self = .request(.patch)
        case "delete": self = .request(.delete)
        case "head": self = .request(.head)
        case "download": self = .download
        default: return nil
        }
    }

    /// The word that names the command, for messages.
    var name: String {
        switch self {
        case let .request(method): return method.rawValue.lowercased()
        case .download: return "download"
        }
    }
}
