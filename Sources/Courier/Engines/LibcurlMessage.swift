import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What libcurl's error messages say, for the two engines that run libcurl: the curl engine,
/// and URLSession on Linux (FoundationNetworking, which passes most of libcurl's failures on as
/// `URLError` `-1` with libcurl's message as the only detail). The one place outside the engines'
/// own classifiers (`CurlFailure`, ``URLSessionFailure``) where libcurl's words are read.
///
/// libcurl words some of these differently in other versions, and each wording is recognised
/// (measured with Debian's 7.74.0 and 8.14.1 by scripts/libcurl-matrix): a cut body is "end of
/// response with 7 bytes missing" from 8.10; a bad status line "Unsupported HTTP/1 subversion in
/// response" from 8.0; a bad chunk size "chunk hex-length char not a hex digit" (or "invalid
/// chunk size") from 8.6; a refused tunnel "Received HTTP code 407 from proxy after CONNECT"
/// before 7.87 (curl's sources at each release tag).
enum LibcurlMessage {
    /// Fragments of libcurl's messages (7.x and 8.x) for a reply that breaks HTTP/1.1's syntax.
    private static let protocolViolations = [
        "Unsupported HTTP version", "HTTP/0.9", "Unsupported response code", "Weird server reply",
        "Invalid status line", "Header without colon", "Nul byte in header", "Too large response headers",
        "Invalid Content-Length", "Overflow Content-Length", "chunked-encoding", "chunked-encoded stream", "content unencoding",
        "Unrecognized content encoding",
        // libcurl 8.x
        "Unsupported HTTP/1 subversion", "Invalid response header", "chunk hex-length", "invalid chunk size", "Unsupported Content-Length",
    ]

    /// Whether `message` reports a reply that is not valid HTTP.
    static func isProtocolViolation(_ message: String) -> Bool {
        protocolViolations.contains { message.localizedCaseInsensitiveContains($0) }
    }

    /// libcurl's message for a body that ended before its length: "transfer closed with 7 bytes
    /// remaining to read" (and "…with outstanding read data remaining"), or "end of response with
    /// 7 bytes missing" from 8.10.
    static func isCutShort(_ message: String) -> Bool {
        message.hasPrefix("transfer closed with") || message.hasPrefix("end of response with")
    }

    /// Whether libcurl's message reports an alert the server sent to end the TLS session.
    static func isTLSAlert(_ message: String) -> Bool {
        message.contains("SSL") && message.contains(" alert ")
    }

    /// Whether the message is libcurl's for a certificate it could not trust (the URLSession
    /// engine gets no code for it).
    static func isUntrustedCertificate(_ message: String) -> Bool {
        message.hasPrefix("SSL certificate problem") || message.contains("target host name")
    }

    /// The proxy failure libcurl's message reports, on either engine: "Could not resolve proxy:
    /// NAME", "CONNECT tunnel failed, response 407" (7.87 and later; before, "Received HTTP code
    /// 407 from proxy after CONNECT").
    static func proxyFailure(in message: String) -> ProxyFailure? {
        if let range = message.range(of: "Could not resolve proxy: ") {
            let name = message[range.upperBound...].prefix { !$0.isWhitespace }
            return .unresolvableHost(name.isEmpty ? "(unnamed)" : String(name))
        }
        if let range = message.range(of: "CONNECT tunnel failed, response ") ?? message.range(of: "Received HTTP code "),
           message.contains("CONNECT"), let status = Int(message[range.upperBound...].prefix(while: \.isNumber)) {
            return .tunnelRefused(status: status)
        }
        return nil
    }

    /// The proxy in libcurl's "Failed to connect to HOST port PORT after N ms: ...": libcurl names
    /// the address it tried, which is the proxy's when there is one. `HOST:PORT` when that is not
    /// the request's own host and port; `nil` when it is, or when the message says otherwise.
    static func unreachedProxy(in message: String, requestURL: URL?) -> String? {
        guard let start = message.range(of: "Failed to connect to "),
              let portMark = message.range(of: " port ", range: start.upperBound..<message.endIndex),
              let port = Int(message[portMark.upperBound...].prefix(while: \.isNumber)) else { return nil }
        let host = String(message[start.upperBound..<portMark.lowerBound])
        if let url = requestURL {
            let targetPort = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            let targetHost = (url.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if host.caseInsensitiveCompare(targetHost) == .orderedSame, port == targetPort { return nil }
        }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The ``OversizedHead`` error for more header bytes than libcurl reads ("Too large response
    /// headers: 307212 > 307200"), or `nil` for any other message.
    static func oversizedFields(_ message: String) -> NetworkError? {
        message.contains("Too large response headers") ? OversizedHead.fieldsError(libcurl: message) : nil
    }

    /// The ``OversizedHead`` error a failure before any response head means, or `nil`: too many
    /// header bytes or (libcurl 8.14 and later) lines, which libcurl words, or a line too long,
    /// which it reports only as "out of memory" (`outOfMemory`: the engine knows that from
    /// libcurl's code, or FoundationNetworking's `-1` "Out of memory").
    static func oversizedHead(_ message: String, outOfMemory: Bool) -> NetworkError? {
        // libcurl 8.14 and later end a head of too many lines with the same code (100) as a line
        // too long; only their words tell them apart.
        if let fields = oversizedFields(message) { return fields }
        if message.contains("Too many response headers") { return OversizedHead.fieldCountError(libcurl: message) }
        return outOfMemory ? OversizedHead.lineError : nil
    }
}
