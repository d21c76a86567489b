import Courier
import Foundation

/// What the command line asked for, as typed. Nothing here is checked against the command yet:
/// ``Invocation`` does that, so that every conflict is reported in one place.
struct Options: Sendable {
    /// The command; `get` when none is named.
    var command: Command = .request(.get)
    /// Whether the command was named, which decides the method for a body (`POST` by default).
    var commandIsExplicit = false
    /// The URLs, positional or `--url`, in the order given.
    var urls: [String] = []
    /// `-o FILE` and `-O`, in the order given: the first goes with the first URL, and so on, as
    /// in curl (wherever each stands on the line).
    var outputs: [OutputArgument] = []

    // Request description.
    var headers: [String] = []
    var user: String?
    var bearer: String?
    /// `-d`, `--data`, `--data-raw`, `--data-urlencode`, in the order given: curl joins them
    /// with `&` in that order.
    var dataArguments: [DataArgument] = []
    /// `--json`, each as typed (`TEXT` or `@FILE`): the body is their contents joined.
    var jsonPieces: [String] = []
    /// `--json`'s arguments joined as typed, `nil` without any: for the checks that ask whether
    /// it was given (the body reads ``jsonPieces``).
    var json: String? { jsonPieces.isEmpty ? nil : jsonPieces.joined() }
    var form: [String] = []
    /// `-T`, in order: curl pairs the first with the first URL, the second with the second…
    var uploadFiles: [String] = []
    /// The first `-T`: the upload of a line that has one (see ``RequestPlan``).
    var uploadFile: String? { uploadFiles.first }
    /// `-X`: the method as typed.
    var method: String?
    /// `-G`: the data goes into the URL's query, not the body.
    var dataInQuery = false
    /// `-A`, `-e`, `-r`: header values, as typed.
    var userAgent: String?
    var referer: String?
    var range: String?
    /// What reading the line found worth a warning (`-r 4`'s appended dash), printed unless `-s`.
    var warnings: [String] = []
    /// `-b`: each a cookie string (`name=value; n2=v2`) or a cookie file.
    var cookies: [String] = []
    /// `-c`: the cookie file to write at the end.
    var cookieJar: String?
    /// `-j`: the session cookies of `-b`'s files are left out, as a new session would.
    var junkSessionCookies = false
    /// `--fail-early`: the first transfer that fails ends the command, the rest not started.
    var failEarly = false
    /// `--disallow-username-in-url`: a URL that names a user is refused (curl's exit 67).
    var disallowsUsernameInURL = false
    /// `--proto`: the schemes a URL may have (curl's list, read by ``ProtocolList``); `nil`: any.
    var protocols: ProtocolList?

    // Where the body goes.
    var directory: String?
    /// `--remote-name-all`: every URL without its own `-o` is saved as with `-O`.
    var remoteNameAll = false
    /// `-J`: `-O` takes the name from `Content-Disposition` when the server sends one.
    var remoteHeaderName = false
    /// `--create-dirs`: the folders an output path names are made.
    var createDirectories = false
    /// `--no-clobber`: an existing output file is kept, the body goes to `FILE.1`, `FILE.2`… instead.
    var noClobber = false
    /// `--output-dir DIR`: where `-o` and `-O` files go.
    var outputDirectory: String?
    /// `-D FILE`: the response heads are written there (`-` for stdout).
    var dumpHeader: String?
    /// `-I`: a `HEAD` request, its head printed as the output.
    var headOnly = false
    /// `-C OFFSET` or `-C -`: resume an output file.
    var continueAt: String?
    /// `--remove-on-error`: an output file of a failed transfer is removed.
    var removeOnError = false
    /// `--etag-save FILE`, `--etag-compare FILE`.
    var etagSave: String?
    var etagCompare: String?
    /// `--url-query`: pieces added to each URL's query.
    var urlQueries: [String] = []
    var includeHeaders = false
    var noResume = false
    /// `-w`: the format, as typed (`@FILE` not yet read).
    var writeOut: String?
    /// `--json-output`: status, headers and body as one JSON object.
    var jsonOutput = false
    /// `-N`: write each chunk as it arrives.
    var noBuffer = false

    // Behaviour.
    var silent = false
    /// `-S`: errors are reported even with `-s`.
    var showError = false
    var verbose = false
    /// `--trace FILE` / `--trace-ascii FILE`: where the exchange is traced, and how.
    var trace: (path: String, style: TraceFile.Style)?
    /// `--trace-time`: each trace block starts with the time.
    var traceTime = false
    var fail = false
    /// `--fail-with-body`: exit 22 on an error status, the body written as usual.
    var failWithBody = false
    var progress = false
    /// `--no-progress-meter`: no progress, errors still reported.
    var noProgressMeter = false
    /// `-g`: URLs are taken as they are, `{}` and `[]` included (no globbing).
    var globOff = false
    /// `-L`: follow redirects.
    var location = false
    /// `--compressed`: offer the codings libcurl decodes, and decode.
    var compressed = false
    /// `--retry-all-errors`, `--retry-connrefused`.
    var retryAllErrors = false
    var retryConnectionRefused = false
    /// `-Z`: the URLs are fetched in parallel, at most `--parallel-max` at a time.
    var parallel = false
    var parallelMax = 50
    var timeout: TimeInterval?
    var connectTimeout: TimeInterval?
    var retries = 0
    var retryDelay: TimeInterval?
    var retryMaxTime: TimeInterval?
    var maxConcurrent = 4
    var maxRedirects: Int?
    var maxFilesize: Int64?

    // Engine, TLS and proxy, spelled as curl spells them.
    /// `--engine`; `nil` leaves the choice to the library (libcurl on Linux, unless `COURIER_ENGINE`).
    var engine: Network.Engine?
    var caCertificates: String?
    /// `--pinnedpubkey` as typed: `sha256//BASE64`, several joined with `;`, or a key file.
    var pinnedPublicKeys: String?
    var clientCertificate: String?
    var clientKey: String?
    var insecure = false
    var proxy: String?

    // The wire, as curl spells it (issue 21).
    /// `--http1.1`, `--http2`, `--http2-prior-knowledge`; `nil` for the library's default (HTTP/2 where negotiated).
    var httpVersion: HTTPVersionPreference?
    /// `--unix-socket PATH`.
    var unixSocket: String?
    /// `--limit-rate RATE`, in bytes per second.
    var limitRate: Int64?
    /// `--resolve`, `--connect-to`, `--noproxy`, `-p`, `-U`, `--tr-encoding`, `--netrc…`: handed
    /// to libcurl as they are (the curl engine only).
    var libcurl = LibcurlOptions()
    /// `-z`: a date, `-DATE`, or a file whose modification time is the date.
    var timeCondition: String?

    var help = false
    var version = false
}

extension Options {
    /// The first `-o FILE` (what `download` takes), or `nil`.
    var output: String? {
        outputs.lazy.compactMap { if case let .file(path) = $0 { return path } else { return nil } }.first
    }

    /// `--data` and its kin: the body pieces other than `-d` (`download` refuses them).
    var data: [String] { dataArguments.filter { !$0.isShortD }.map(\.value) }

    /// `-d` is `--data` for requests (as in curl) and `--dir` for `download`; which one is only
    /// known once the command has been read, so the values wait in ``dataArguments``.
    var shortD: [String] { dataArguments.filter(\.isShortD).map(\.value) }
}

/// One body piece of `-d`, `--data`, `--data-raw` or `--data-urlencode`, as typed.
struct DataArgument: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `-d`, `--data`: `TEXT`, or `@FILE` (`@-` stdin).
        case data
        /// `--data-raw`: `TEXT` as it is, even with a leading `@`.
        case raw
        /// `--data-urlencode`: `content`, `=content`, `name=content`, `@file`, `name@file`.
        case urlEncode
        /// `--data-binary`: `TEXT`, or `@FILE` (`@-` stdin), bytes kept exactly as they are.
        case binary
    }

    let kind: Kind
    let value: String
    /// Given as `-d`, which is `--dir` for `download`.
    var isShortD = false
}

/// Where `-o` or `-O` sends one URL's body.
enum OutputArgument: Sendable, Equatable {
    /// `-o FILE` (`-o -` is stdout).
    case file(String)
    /// `-O`: a file named after the URL (or, with `-J`, after the server's `Content-Disposition`).
    case remoteName
}

/// The first positional argument, when it names one.
enum Command: Equatable, Sendable {
    /// A single request; its body goes to stdout or to `-o FILE`.
    case request(HTTPMethod)
    /// One or many files saved to disk, in parallel, resumable.
    case download
    /// The library at work against a loopback server of the tool's own (see `DemoCommand`).
    case demo

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
        case "demo": self = .demo
        default: return nil
        }
    }

    /// The word that names the command, for messages.
    var name: String {
        switch self {
        case let .request(method): return method.rawValue.lowercased()
        case .download: return "download"
        case .demo: return "demo"
        }
    }
}
