import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything that can go wrong with a request, each case carrying what the caller needs to act on it.
///
/// Errors that come from a response keep the whole ``HTTPResponse`` (status, headers and body bytes),
/// so an error page or a half-parsed payload is never thrown away.
public enum NetworkError: Error, Sendable {
    /// The request's URL could not be built; the associated value says what was wrong (a URL
    /// in it is shown through ``Redaction/standard``).
    case invalidURL(String)
    /// The request was cancelled, through ``NetworkTask/cancel()`` or ``Network/cancelAll()``, or
    /// was scheduled on a network after ``Network/close()``.
    case cancelled
    /// The request's deadline (``NetworkRequest/timeout``, or the `timeout:` of a blocking call) passed.
    case timedOut
    /// The transport failed: connection refused, unknown host, connection lost (on Linux a server
    /// closing mid-body is `URLError` code `-1`), TLS failure and so on.
    case transport(URLError)
    /// The server answered with a status the request does not accept (by default anything outside `200..<300`).
    case httpStatus(HTTPResponse)
    /// The body could not be turned into the request's output; carries the decoder's error and the response.
    case decodingFailed(any Error, HTTPResponse)
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
    /// The server redirected more than ``Network/maximumRedirects`` times; carries the last
    /// redirect response.
    case tooManyRedirects(HTTPResponse)
    /// A download's destination already exists and ``DownloadOptions/replaceExisting`` was not
    /// given. The completed body stays in the `.partial` file, so a retry with that option
    /// finishes without downloading again.
    case destinationExists(URL)
}

extension NetworkError {
    /// The response this error carries, if it came from one.
    public var response: HTTPResponse? {
        switch self {
        case let .httpStatus(response), let .decodingFailed(_, response), let .tooManyRedirects(response): return response
        default: return nil
        }
    }

    /// The HTTP status code this error carries, if it came from a response.
    public var statusCode: Int? { response?.statusCode }

    /// Classifies an error reported by URLSession.
    static func from(_ error: any Error) -> NetworkError {
        if let error = error as? NetworkError { return error }
        guard let urlError = error as? URLError else {
            return .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error]))
        }
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .badURL, .unsupportedURL: return .invalidURL(urlError.failingURL.map(Redaction.standard.redact) ?? urlError.localizedDescription)
        default: return .transport(urlError)
        }
    }
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
        case .cancelled: return "The request was cancelled."
        case .timedOut: return "The request timed out."
        case let .transport(error): return "Transport error \(error.code.rawValue): \(error.localizedDescription)"
        case let .httpStatus(response): return "HTTP \(response.statusCode) from \(response.url.map(redaction.redact) ?? "server")"
        case let .decodingFailed(error, response): return "Could not decode the \(response.body.count)-byte body: \(error)"
        case let .encodingFailed(error): return "Could not encode the request body: \(error)"
        case let .wouldDeadlock(detail): return "Blocking call refused, it would deadlock: \(detail)"
        case let .fileSystem(url, error): return "File error at \(url.path): \(error.localizedDescription)"
        case let .interceptorFailed(error): return "A request interceptor failed: \(error)"
        case let .responseTooLarge(limit): return "The response body is larger than the \(limit)-byte limit for in-memory bodies."
        case let .tooManyRedirects(response):
            return "Too many redirects (the last to \(response.headers["Location"].map { redaction.redact(urlString: $0) } ?? "?"))."
        case let .destinationExists(url): return "\(url.path) already exists (use .replaceExisting to overwrite it)"
        }
    }
}
