import Courier
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `-v`: what goes over the wire, on stderr, in curl's notation: `>` request heads, `<`
/// response heads, `*` events (redirects, retries, the end) with the seconds since the start.
///
/// A request head is written once its response head (or the end of its transfer) says which
/// protocol it went out over — `> GET / HTTP/2` — as curl writes it after the connection is
/// made. When the engine does not say (URLSession on Linux), a plain-http request is written
/// `HTTP/1.1`, which its libcurl always sends there, and an https one without a version (ALPN
/// may have chosen HTTP/2). Once each
/// attempt's transfer is over, a `*` line says which connection it used and whether it was
/// reused (`Connected to …` or `Re-using existing connection …`, as curl words them).
///
/// Credentials are hidden by ``Redaction/standard``: `Authorization`, `Proxy-Authorization`,
/// `Cookie` and `Set-Cookie` values, URL passwords and token parameters. The request head is
/// the one courier hands to the engine (its `User-Agent` and cookies included), which adds a few
/// fields of its own on the wire (`Accept`, `Content-Length`; URLSession also `Accept-Encoding`).
struct VerboseLog: NetworkObserver {
    let console: Console
    let start: DispatchTime
    private let redaction = Redaction.standard
    /// Request heads waiting for their protocol, by request: the line after `> METHOD TARGET`,
    /// and the rest of the head.
    private let pending = Locked([UInt64: (requestLine: String, unknownVersion: String, lines: [String])]())

    init(console: Console, start: DispatchTime) {
        self.console = console
        self.start = start
    }

    func willSend(_ request: URLRequest, context: RequestContext) {
        guard let url = request.url else { return }
        let method = request.httpMethod ?? context.method.rawValue
        let attempt = context.attempt > 1 ? "attempt \(context.attempt): " : ""
        write(["* \(stamp) \(attempt)\(method) \(redaction.redact(url))"])
        var lines: [String] = []
        if let host = url.host { lines.append("> Host: \(host.contains(":") ? "[\(host)]" : host)\(url.port.map { ":\($0)" } ?? "")") }
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        lines += fields.map { "> \($0.key): \(redaction.redact(headerValue: $0.value, name: $0.key))" }
        // Cleartext goes out as HTTP/1.1 unless the network asked for prior knowledge, which
        // the engine then reports; over TLS only the engine can tell.
        let cleartext = url.scheme?.lowercased() == "http" ? " HTTP/1.1" : ""
        pending.withLock { $0[context.id] = ("> \(method) \(Self.target(of: url))", cleartext, lines + [">"]) }
    }

    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        let target = request.url.map(redaction.redact) ?? "?"
        write(requestHead(for: context, version: response.httpVersion)
              + ["* \(stamp) response \(response.statusCode), redirect to \(target)"] + head(of: response))
    }

    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        // In-memory requests report the whole response, downloads the head alone.
        let size = response.body.isEmpty ? "" : ", \(response.body.count) bytes"
        write(requestHead(for: context, version: response.httpVersion)
              + ["* \(stamp) response \(response.statusCode)\(size)"] + head(of: response))
    }

    /// The attempt's transfer is over: its request head, if no response showed it yet and it
    /// went out, and the connection it used.
    func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
        let sent = metrics.requestSent != nil || metrics.firstByte != nil
        let head = requestHead(for: context, version: metrics.httpVersion ?? .unknown)
        write((sent ? head : []) + connection(of: metrics, host: context.url?.host))
    }

    func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
        _ = requestHead(for: context, version: .unknown)
        write(["* \(stamp) attempt \(context.attempt) failed: \(error.description(redacting: redaction)); retrying in \(String(format: "%.2f", delay)) s"])
    }

    func didFail(_ error: NetworkError, context: RequestContext) {
        _ = requestHead(for: context, version: .unknown)
        write(["* \(stamp) failed: \(error.description(redacting: redaction))"])
    }

    /// The request head waiting for `context`'s response, now that its protocol is known, or
    /// nothing if it was written already: `> GET /path HTTP/2`, its fields, `>`.
    private func requestHead(for context: RequestContext, version: HTTPVersion) -> [String] {
        guard let head = pending.withLock({ $0.removeValue(forKey: context.id) }) else { return [] }
        return [head.requestLine + (version == .unknown ? head.unknownVersion : " \(version)")] + head.lines
    }

    /// curl's words for the connection a transfer used: `Connected to HOST (IP) port N`, or
    /// `Re-using existing connection with host HOST`, then the protocol; nothing where the
    /// engine did not say (URLSession on Linux).
    private func connection(of metrics: TransferMetrics, host: String?) -> [String] {
        guard let reused = metrics.reusedConnection, let address = metrics.remoteAddress else { return [] }
        let name = host ?? address
        // libcurl 8.2 and later number their connections; curl writes the number as below.
        var lines = [reused ? "* \(stamp) Re-using existing connection\(metrics.connectionID.map { " #\($0)" } ?? "") with host \(name)"
                            : "* \(stamp) Connected to \(name) (\(address)) port \(metrics.remotePort.map(String.init) ?? "-")"
                                + (metrics.connectionID.map { " (#\($0))" } ?? "")]
        if let version = metrics.httpVersion { lines.append("* using \(version)") }
        return lines
    }

    /// `< HTTP/1.1 200 OK`, the header fields, and a lone `<`.
    private func head(of response: HTTPResponse) -> [String] {
        ["< " + HeadText.statusLine(of: response.statusCode, version: response.httpVersion)]
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
