import Courier
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `-v`: what goes over the wire, on stderr, in curl's notation: `>` request heads, `<`
/// response heads, `*` events (redirects, retries, the end) with the seconds since the start.
///
/// Credentials are hidden by ``Redaction/standard``: `Authorization`, `Proxy-Authorization`,
/// `Cookie` and `Set-Cookie` values, URL passwords and token parameters. The request head is
/// the one courier hands to the engine (its `User-Agent` and cookies included), which adds a few
/// fields of its own on the wire (`Accept`, `Content-Length`; URLSession also `Accept-Encoding`).
struct VerboseLog: NetworkObserver {
    let console: Console
    let start: DispatchTime
    private let redaction = Redaction.standard

    init(console: Console, start: DispatchTime) {
        self.console = console
        self.start = start
    }

    func willSend(_ request: URLRequest, context: RequestContext) {
        guard let url = request.url else { return }
        let method = request.httpMethod ?? context.method.rawValue
        let attempt = context.attempt > 1 ? "attempt \(context.attempt): " : ""
        var lines = ["* \(stamp) \(attempt)\(method) \(redaction.redact(url))", "> \(method) \(Self.target(of: url)) HTTP/1.1"]
        if let host = url.host { lines.append("> Host: \(host.contains(":") ? "[\(host)]" : host)\(url.port.map { ":\($0)" } ?? "")") }
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        lines += fields.map { "> \($0.key): \(redaction.redact(headerValue: $0.value, name: $0.key))" }
        write(lines + [">"])
    }

    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        let target = request.url.map(redaction.redact) ?? "?"
        write(["* \(stamp) response \(response.statusCode), redirect to \(target)"] + head(of: response))
    }

    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        // In-memory requests report the whole response, downloads the head alone.
        let size = response.body.isEmpty ? "" : ", \(response.body.count) bytes"
        write(["* \(stamp) response \(response.statusCode)\(size)"] + head(of: response))
    }

    func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
        write(["* \(stamp) attempt \(context.attempt) failed: \(error.description(redacting: redaction)); retrying in \(String(format: "%.2f", delay)) s"])
    }

    func didFail(_ error: NetworkError, context: RequestContext) {
        write(["* \(stamp) failed: \(error.description(redacting: redaction))"])
    }

    /// `< HTTP/1.1 200 OK`, the header fields, and a lone `<`.
    private func head(of response: HTTPResponse) -> [String] {
        ["< " + HeadText.statusLine(of: response.statusCode)]
            + response.headers.fields.map { "< \($0.name): \(redaction.redact(headerValue: $0.value, name: $0.name))" }
            + ["<"]
    }

    /// The request target: the path (`/` when empty) and the query, redacted.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? url.path
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        return Redaction.standard.redact(urlString: (path.isEmpty ? "/" : path) + query)
    }

    /// Seconds since the command started, to the millisecond.
    private var stamp: String {
        String(format: "%.3f s", Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
    }

    /// One write per event, so the lines of two events never interleave.
    private func write(_ lines: [String]) {
        console.writeError(Data(lines.map { $0 + "\n" }.joined().utf8))
    }
}
