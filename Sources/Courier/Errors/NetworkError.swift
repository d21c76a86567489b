import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything that can go wrong with a request, each case carrying what the caller needs to act on it.
///
/// Errors that come from a response keep the whole ``HTTPResponse`` (status, headers and body bytes),
/// so an error page or a half-parsed payload is never thrown away.
///
/// Every way of printing one (`"\(error)"`, `print(error)`, `String(reflecting:)`, `dump`,
/// `localizedDescription`) says what happened in a sentence, with URLs and headers shown through
/// ``Redaction/standard``: no password, token or cookie reaches a log that way.
///
/// **How this enum grows.** Callers switch over it, so a new case breaks their code: new kinds of
/// limit are new values of ``LimitExceeded/Kind`` (carried by ``limitExceeded(_:)``), new detail
/// goes into the values a case already carries, and a new case is added only for a failure that
/// needs different handling from every existing one.
public enum NetworkError: Error, Sendable {
    /// The request's URL could not be built; the associated value says what was wrong (a URL
    /// in it is shown through ``Redaction/standard``).
    case invalidURL(String)
    /// The request cannot be sent as it is: a method or a header name that is not an HTTP token,
    /// a header value or credentials with a line break, NUL or another control character, a
    /// timeout that is negative or not a number. Nothing was sent. The text names the header
    /// (never a value).
    case invalidRequest(String)
    /// The request was cancelled, through ``NetworkTask/cancel()`` or ``Network/cancelAll()``, or
    /// was scheduled on a network after ``Network/close()``.
    case cancelled
    /// The request's deadline (``NetworkRequest/timeout``, or the `timeout:` of a blocking call)
    /// passed; ``TimeoutExceeded`` says which, its value and the URL. Final: never retried, the
    /// deadline covers every attempt. A transport's own idle or connect timeout is not this case
    /// but ``transport(_:)`` with `URLError.timedOut`. Written without its value, `.timedOut`
    /// still matches it (`case .timedOut:`) and makes one (``timedOut``).
    case timedOut(TimeoutExceeded)
    /// The transport failed: connection refused, unknown host, connection reset, no reply at all
    /// (`URLError.badServerResponse`, "Empty reply from server"), the transport's idle or connect
    /// limit (`URLError.timedOut`: no connection, or no byte, for that long; a backstop behind
    /// the request's deadline, see <doc:Engines#The-seam>) and so on.
    case transport(URLError)
    /// A secure connection could not be made: ``TLSFailure`` says which check failed (untrusted
    /// certificate, pin mismatch, unusable client certificate, ...); the `URLError` carries the
    /// TLS library's own reason in its description. Not retried by default: none of these
    /// mends itself. See <doc:TLS>.
    case tls(TLSFailure, URLError)
    /// The proxy the request went through failed: ``ProxyFailure`` says how (not found, not
    /// reachable, or it refused the `CONNECT` tunnel with a status such as `407`) and names the
    /// proxy, not the request's host; the `URLError` carries libcurl's message. Nothing reached
    /// the server. A refused tunnel is not retried by default; the others are retried as their
    /// `URLError` code says (`-1003`, `-1004`). See <doc:Errors>.
    case proxy(ProxyFailure, URLError)
    /// The server's reply is not valid HTTP: a malformed status line, an HTTP/0.9 reply, a header
    /// line without a colon, a broken chunked encoding, conflicting `Content-Length` headers, a
    /// response head larger than libcurl reads (a line of more than 100 KiB, or more than 300 KiB
    /// of header fields). The text says what was wrong. Not retried by default: a broken server
    /// tends to stay broken.
    case invalidResponse(String)
    /// The connection closed before the whole body arrived: fewer bytes than `Content-Length`
    /// announced, or a chunked body without its last chunk. Carries the transport's error (on
    /// Linux `URLError` code `-1`, e.g. "transfer closed with 7 bytes remaining to read"), whose
    /// code ``RetryPolicy/retryableErrorCodes`` is matched against.
    case incompleteBody(URLError)
    /// The server answered with a status the request does not accept (by default anything outside `200..<300`).
    case httpStatus(HTTPResponse)
    /// The body could not be turned into the request's output; carries the decoder's error and the response.
    /// The description names the body's `Content-Type` and shows its first bytes, so an HTML
    /// error page where JSON was expected is plain to see.
    case decodingFailed(any Error, HTTPResponse)
    /// The response's media type is not one the request accepts
    /// (``NetworkRequest/acceptedContentTypes``), e.g. a proxy's `200` HTML page where JSON was
    /// expected; carries the accepted types and the whole response.
    ///
    /// ```swift
    /// catch NetworkError.unexpectedContentType(let expected, let response) {
    ///     print("wanted \(expected), got \(response.headers["Content-Type"] ?? "no type"):", response.text.prefix(200))
    /// }
    /// ```
    case unexpectedContentType(expected: [String], response: HTTPResponse)
    /// The request body could not be encoded (e.g. a `.json` value whose `encode(to:)` threw).
    case encodingFailed(any Error)
    /// A blocking call was made where it could never finish; the message says where.
    case wouldDeadlock(String)
    /// A file could not be read or written: an unwritable or missing folder, a full disk, a
    /// missing upload file. Carries the file and the system's error.
    case fileSystem(URL, any Error)
    /// An interceptor's `adapt` failed; carries its error.
    case interceptorFailed(any Error)
    /// An in-memory response body grew past ``Network/maximumResponseSize``; carries the limit in
    /// bytes. Use a download for bodies that large.
    case responseTooLarge(Int64)
    /// The response passed one of the limits Courier sets against hostile or broken servers: a
    /// compressed body that inflates past ``Network/decompressionLimit``, a line or a
    /// server-sent event longer than its maximum. ``LimitExceeded`` says which limit, its value,
    /// and how much had arrived. The transfer stops at once; not retried by default. New limits
    /// come as new ``LimitExceeded/Kind`` values, not new cases.
    case limitExceeded(LimitExceeded)
    /// The server redirected more than ``Network/maximumRedirects`` times; carries the last
    /// redirect response.
    case tooManyRedirects(HTTPResponse)
    /// The server redirected to a scheme other than http or https (`file:`, `ftp:`, ...), which
    /// Courier refuses rather than follow or rewrite. Carries the scheme (lowercased)
    /// and the redirect response (status and headers, `Location` included).
    case unsupportedRedirect(String, HTTPResponse)
    /// A download's destination already exists and ``DownloadOptions/replaceExisting`` was not
    /// given. The completed body stays in the `.partial` file, so a retry with that option
    /// finishes without downloading again.
    case destinationExists(URL)
    /// The curl engine could not set the request up: the libcurl it runs on refused an option
    /// Courier set (named, as `CURLOPT_…`, with that libcurl's version). Nothing was sent. The
    /// `URLError` carries libcurl's code and message ("An unknown option was passed in to
    /// libcurl" is CURLcode 48: the option is newer than that libcurl). The engine takes the
    /// older option wherever a libcurl from 7.68.0 on lacks a newer one, so this means a libcurl
    /// built without something Courier needs, or a bug: see <doc:Engines>. Not retried.
    case curlOptionRefused(option: String, libcurlVersion: String, URLError)
}

extension NetworkError {
    /// ``timedOut(_:)`` with nothing known of which deadline passed: `throw NetworkError.timedOut`
    /// and a stub's reply, as written before the case carried a ``TimeoutExceeded``.
    public static var timedOut: NetworkError {
        .timedOut(TimeoutExceeded(kind: .unspecified, seconds: nil))
    }

    /// The response this error carries, if it came from one.
    public var response: HTTPResponse? {
        switch self {
        case let .httpStatus(response), let .decodingFailed(_, response), let .tooManyRedirects(response),
             let .unexpectedContentType(_, response), let .unsupportedRedirect(_, response):
            return response
        default: return nil
        }
    }

    /// The HTTP status code this error carries, if it came from a response.
    public var statusCode: Int? { response?.statusCode }
}

extension NetworkError: LocalizedError {
    /// A one-line description fit for a log or a command-line message. URLs in it are shown
    /// through ``Redaction/standard``: no password or token reaches a log this way.
    public var errorDescription: String? {
        description(redacting: .standard)
    }

    /// The one-line description, with the URLs it mentions shown through `redaction` (a
    /// logger with its own list of secret query parameters). The detail of ``invalidURL(_:)``
    /// was written when the error was made, with ``Redaction/standard``.
    public func description(redacting redaction: Redaction) -> String {
        switch self {
        case let .invalidURL(detail): return "Invalid URL: \(detail)"
        case let .invalidRequest(detail): return "Invalid request: \(detail)"
        case .cancelled: return "The request was cancelled."
        case let .timedOut(timeout): return timeout.description(redacting: redaction)
        case let .transport(error): return TransportDescription.sentence(for: error, redacting: redaction)
        case let .tls(failure, error): return "\(failure.summary): \(redaction.redact(text: error.localizedDescription))"
        case let .proxy(failure, error): return "\(failure.summary): \(redaction.redact(text: error.localizedDescription))"
        case let .invalidResponse(detail): return "The server's reply is not valid HTTP: \(redaction.redact(text: detail))"
        case let .incompleteBody(error): return TransportDescription.incompleteBody(error, redacting: redaction)
        case let .httpStatus(response):
            // A stored answer says so: the server did not say it now.
            let source = response.cacheStatus == .network ? "" : " (\(response.cacheStatus), from the cache)"
            return "HTTP \(response.statusCode) from \(response.url.map(redaction.redact) ?? "server")\(source)"
                + ErrorBodySummary.sentence(for: response, redacting: redaction)
        case let .decodingFailed(error, response):
            return "Could not decode the \(response.body.count)-byte \(response.headers["Content-Type"] ?? "untyped") body"
                + " from \(response.url.map(redaction.redact) ?? "the server"): \(Self.sentence(redaction.redact(text: Self.describe(error))))"
                + (response.body.isEmpty ? "" : " The body starts: \(response.bodyPreview)")
        case let .unexpectedContentType(expected, response):
            return "Unexpected Content-Type \(response.headers["Content-Type"] ?? "(none)") from"
                + " \(response.url.map(redaction.redact) ?? "the server") (accepted: \(expected.joined(separator: ", ")))."
                + (response.body.isEmpty ? "" : " The body starts: \(response.bodyPreview)")
        case let .encodingFailed(error): return "Could not encode the request body: \(redaction.redact(text: String(describing: error)))"
        case let .wouldDeadlock(detail): return "Blocking call refused, it would deadlock: \(detail)"
        case let .fileSystem(url, error): return "File error at \(url.path): \(error.localizedDescription)"
        case let .interceptorFailed(error): return "A request interceptor failed: \(redaction.redact(text: String(describing: error)))"
        case let .responseTooLarge(limit): return "The response body is larger than the \(limit)-byte limit for in-memory bodies."
        case let .limitExceeded(limit): return limit.description
        case let .tooManyRedirects(response):
            return "Too many redirects (the last to \(response.headers["Location"].map { redaction.redact(urlString: $0) } ?? "?"), "
                + "from \(response.url.map(redaction.redact) ?? "the server"): a redirect loop, or raise Network.maximumRedirects."
        case let .unsupportedRedirect(scheme, response):
            return "Redirect to unsupported scheme '\(scheme)' refused (HTTP \(response.statusCode), Location: \(response.headers["Location"].map { redaction.redact(urlString: $0) } ?? "?"))"
                + " from \(response.url.map(redaction.redact) ?? "the server")."
        case let .destinationExists(url): return "\(url.path) already exists (use .replaceExisting to overwrite it)"
        case let .curlOptionRefused(option, version, error):
            let code = error.curlCode.map { "CURLcode \($0), " } ?? ""
            return "libcurl \(version) refused \(option): \(redaction.redact(text: error.localizedDescription)) (\(code)nothing was sent)"
        }
    }

    /// `text` ending with a full stop, for text that may or may not have one.
    private static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }

    /// A decoding error in one line: what went wrong and where, without the nested context dump.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "" : " at " + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case let .dataCorrupted(context):
            return context.debugDescription + path(context)
        case let .keyNotFound(key, context):
            return "no value for the key \"\(key.stringValue)\"" + path(context)
        case let .typeMismatch(type, context), let .valueNotFound(type, context):
            return "expected \(type)" + path(context) + ": " + context.debugDescription
        @unknown default:
            return String(describing: error)
        }
    }
}

extension NetworkError {
    /// The same error carrying `response` in place of the one it holds; errors without a
    /// response are returned as they are. A download's `validate` sees the response head only:
    /// the error it throws is reported with the whole error page once that has arrived.
    func carrying(_ response: HTTPResponse) -> NetworkError {
        switch self {
        case .httpStatus: return .httpStatus(response)
        case let .decodingFailed(error, _): return .decodingFailed(error, response)
        case let .unexpectedContentType(expected, _): return .unexpectedContentType(expected: expected, response: response)
        case .tooManyRedirects: return .tooManyRedirects(response)
        case let .unsupportedRedirect(scheme, _): return .unsupportedRedirect(scheme, response)
        default: return self
        }
    }
}
