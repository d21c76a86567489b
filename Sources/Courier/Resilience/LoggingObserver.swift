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
/// The values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` (and any
/// other header named in ``redactedHeaders``) are replaced by `<redacted>`; bodies are not logged.
public struct LoggingObserver: NetworkObserver {
    /// Header names (case-insensitive) whose values are never written.
    public var redactedHeaders: Set<String>
    /// Whether each attempt is logged as a `curl` command line to paste into a shell (see
    /// ``NetworkRequest/curlCommand(on:revealingCredentials:)``; ``redactedHeaders`` and a URL's
    /// password redacted, a body sent from a file not shown) rather than as method, URL and
    /// headers. Default: `false`.
    public var logsCurlCommands = false
    private let write: @Sendable (String) -> Void

    /// Creates a logger that hands each line to `write` (default: standard error).
    public init(redacting extraHeaders: Set<String> = [], write: @escaping @Sendable (String) -> Void = LoggingObserver.standardError) {
        self.redactedHeaders = Set((["authorization", "proxy-authorization", "cookie", "set-cookie"] + extraHeaders).map { $0.lowercased() })
        self.write = write
    }

    /// Writes a line to standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Logs the method, URL and headers of an attempt.
    public func willSend(_ request: URLRequest, context: RequestContext) {
        if logsCurlCommands {
            return write("[\(context.id)#\(context.attempt)] → " + CurlCommand(request, body: nil, redacting: redactedHeaders).text)
        }
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        write("[\(context.id)#\(context.attempt)] → \(context.method) \(request.url?.absoluteString ?? "?")\(format(headers))")
    }

    /// Logs the status, size and headers of a response.
    public func didReceive(_ response: HTTPResponse, context: RequestContext) {
        write("[\(context.id)#\(context.attempt)] ← \(response.statusCode) (\(response.body.count) bytes)\(format(response.headers.fields))")
    }

    /// Logs a final failure.
    public func didFail(_ error: NetworkError, context: RequestContext) {
        write("[\(context.id)#\(context.attempt)] ✗ \(error.localizedDescription)")
    }

    /// Logs a retry.
    public func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
        write("[\(context.id)#\(context.attempt)] ↻ retrying in \(String(format: "%.2f", delay)) s after: \(error.localizedDescription)")
    }

    /// `name: value` pairs, credentials redacted.
    func format(_ headers: [(name: String, value: String)]) -> String {
        headers.map { " | \($0.name): \(redactedHeaders.contains($0.name.lowercased()) ? "<redacted>" : $0.value)" }.joined()
    }
}
