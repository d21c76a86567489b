import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ready-made observer that writes one line per event, with credentials redacted.
///
/// ```swift
/// network.observers.append(LoggingObserver())                       // to standard error
/// network.observers.append(LoggingObserver { line in logger.info("\(line)") })
/// ```
///
/// Credentials are hidden by ``redaction`` (see ``Redaction``): the values of `Authorization`,
/// `Proxy-Authorization`, `Cookie` and `Set-Cookie` (and any other header named in
/// ``redactedHeaders``), the password of a `user:password@` URL, and the values of the query
/// parameters named in ``redactedQueryParameters`` are replaced by `<redacted>`, in URLs,
/// headers and error descriptions alike. Bodies are not logged.
public struct LoggingObserver: NetworkObserver {
    /// The rule applied to every URL and header this observer writes.
    public var redaction: Redaction
    /// Whether each attempt is logged as a `curl` command line to paste into a shell (see
    /// ``NetworkRequest/curlCommand(on:revealingCredentials:)``; ``redactedHeaders`` and a URL's
    /// password redacted, a body sent from a file not shown) rather than as method, URL and
    /// headers. Default: `false`.
    public var logsCurlCommands = false
    private let write: @Sendable (String) -> Void

    /// Header names (case-insensitive) whose values are never written.
    public var redactedHeaders: Set<String> {
        get { redaction.headerNames }
        set { redaction.headerNames = newValue }
    }

    /// Query parameter names (case-insensitive) whose values are never written; by default
    /// ``Redaction/defaultQueryParameters`` (`access_token`, `token`, `signature`, `X-Amz-Signature`).
    public var redactedQueryParameters: Set<String> {
        get { redaction.queryParameters }
        set { redaction.queryParameters = newValue }
    }

    /// Creates a logger that hands each line to `write` (default: standard error).
    ///
    /// - Parameters:
    ///   - extraHeaders: Headers to hide besides ``Redaction/defaultHeaderNames``.
    ///   - queryParameters: The query parameters to hide (case-insensitive).
    ///   - write: Receives each line, without a line break.
    public init(redacting extraHeaders: Set<String> = [],
                redactingQueryParameters queryParameters: Set<String> = Redaction.defaultQueryParameters,
                write: @escaping @Sendable (String) -> Void = LoggingObserver.standardError) {
        self.redaction = Redaction(headerNames: Redaction.defaultHeaderNames.union(extraHeaders), queryParameters: queryParameters)
        self.write = write
    }

    /// Writes a line to standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Logs the method, URL and headers of an attempt or of a redirect it follows.
    public func willSend(_ request: URLRequest, context: RequestContext) {
        if logsCurlCommands {
            return write("[\(context.id)#\(context.attempt)] → " + CurlCommand(request, body: nil, redaction: redaction).text)
        }
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        write("[\(context.id)#\(context.attempt)] → \(request.httpMethod ?? context.method.rawValue) \(request.url.map(redaction.redact) ?? "?")\(format(headers))")
    }

    /// Logs a redirect that is followed: its status and headers (the `Location` redacted like
    /// any URL). The request that follows is logged by ``willSend(_:context:)``.
    public func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        write("[\(context.id)#\(context.attempt)] ↪ \(response.statusCode)\(format(response.headers.fields))")
    }

    /// Logs the status, size and headers of a response.
    public func didReceive(_ response: HTTPResponse, context: RequestContext) {
        // Where it came from, when not from the server (the network's HTTPCache).
        let source = response.cacheStatus == .network ? "" : ", \(response.cacheStatus)"
        write("[\(context.id)#\(context.attempt)] ← \(response.statusCode) (\(response.body.count) bytes\(source))\(format(response.headers.fields))")
    }

    /// Logs a final failure.
    public func didFail(_ error: NetworkError, context: RequestContext) {
        write("[\(context.id)#\(context.attempt)] ✗ \(error.description(redacting: redaction))")
    }

    /// Logs a retry.
    public func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
        write("[\(context.id)#\(context.attempt)] ↻ retrying in \(String(format: "%.2f", delay)) s after: \(error.description(redacting: redaction))")
    }

    /// `name: value` pairs, credentials redacted.
    func format(_ headers: [(name: String, value: String)]) -> String {
        headers.map { " | \($0.name): \(redaction.redact(headerValue: $0.value, name: $0.name))" }.joined()
    }
}
