import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the `URLError`s that end a task mean on Linux, where FoundationNetworking runs libcurl,
/// turned into the ``NetworkError`` that says so. The one place this mapping lives.
///
/// FoundationNetworking translates only a few libcurl codes (refused, unknown host, reset,
/// empty reply, timeouts); every other libcurl failure arrives as `URLError` code `-1` and a
/// bad status line as `-1002` ("unsupported URL"), with libcurl's own message as the only
/// detail. Measured against a raw loopback server (libcurl 7.88.1):
///
/// | the server | code | libcurl's message | Courier reports |
/// |---|---|---|---|
/// | `HTTP/1.1 abc` | -1002 | Unsupported HTTP version in response | ``NetworkError/invalidResponse(_:)`` |
/// | `hello` (HTTP/0.9) | -1002 | Received HTTP/0.9 when not allowed | ``NetworkError/invalidResponse(_:)`` |
/// | status 999999 | -1002 | Unsupported response code in HTTP response | ``NetworkError/invalidResponse(_:)`` |
/// | a header line without colon | -1 | Header without colon | ``NetworkError/invalidResponse(_:)`` |
/// | a bad chunk size | -1 | Illegal or missing hexadecimal sequence in chunked-encoding | ``NetworkError/invalidResponse(_:)`` |
/// | a trailer line without a colon (curl engine: 43) | — | Failed reading the chunked-encoded stream | ``NetworkError/invalidResponse(_:)`` |
/// | `Content-Length: abc` | -1 | Invalid Content-Length: value | ``NetworkError/invalidResponse(_:)`` |
/// | NUL in a header | -1 | Nul byte in header | ``NetworkError/invalidResponse(_:)`` |
/// | more than 300 KiB of header lines | -1 | Too large response headers: 307212 > 307200 | ``NetworkError/invalidResponse(_:)`` (``OversizedHead``) |
/// | a head line over 100 KiB, before the head is complete | -1 | Out of memory | ``NetworkError/invalidResponse(_:)`` (``OversizedHead``, in ``Transfer``) |
/// | gzip that is not gzip | -1 | Error while processing content unencoding: ... | ``NetworkError/invalidResponse(_:)`` |
/// | body shorter than `Content-Length` | -1 | transfer closed with 7 bytes remaining to read | ``NetworkError/incompleteBody(_:)`` |
/// | chunked body without last chunk | -1 | transfer closed with outstanding read data remaining | ``NetworkError/incompleteBody(_:)`` |
/// | closes without a byte | -1011 | Empty reply from server | ``NetworkError/transport(_:)`` as is |
/// | resets the connection | -1005 | Recv failure: Connection reset by peer | ``NetworkError/transport(_:)`` as is |
/// | a certificate no trusted authority issued | -1 | SSL certificate problem: unable to get local issuer certificate | ``NetworkError/tls(_:_:)``, untrusted |
/// | `https_proxy` names a host that does not resolve | -1 | Could not resolve proxy: NAME | ``NetworkError/proxy(_:_:)``, unresolvable `NAME` |
/// | the proxy answers `CONNECT` with 407 | -1 | CONNECT tunnel failed, response 407 | ``NetworkError/proxy(_:_:)``, tunnel refused (407) |
///
/// Any other `-1` (a libcurl code FoundationNetworking does not translate) stays a
/// ``NetworkError/transport(_:)`` with libcurl's message.
///
/// libcurl words some of these differently in other versions, and each wording is recognised
/// (measured with Debian's 7.74.0 and 8.14.1 by scripts/libcurl-matrix): a cut body is "end of
/// response with 7 bytes missing" from 8.10; a bad status line "Unsupported HTTP/1 subversion in
/// response" from 8.0; a bad chunk size "chunk hex-length char not a hex digit" (or "invalid
/// chunk size") from 8.6; a refused tunnel "Received HTTP code 407 from proxy after CONNECT"
/// before 7.87 (curl's sources at each release tag).
///
/// The curl engine's errors carry their `CURLcode` (``CurlError``): an option libcurl refused
/// (48 for one it does not know) is ``NetworkError/curlOptionRefused(option:libcurlVersion:_:)``; 8 and 61 are
/// ``NetworkError/invalidResponse(_:)``, 18 ``NetworkError/incompleteBody(_:)``, the TLS
/// codes (35, 58, 60, 77, 90) ``NetworkError/tls(_:_:)`` with the ``TLSFailure`` each means,
/// 5 (the proxy does not resolve), 56 or 97 after a refused `CONNECT`, and 7 when libcurl's
/// message names an address other than the request's (the proxy's) are
/// ``NetworkError/proxy(_:_:)``; the rest keep their `URLError`. (URLSession's `-1004` does not
/// say whether the proxy or the server refused: it stays a ``NetworkError/transport(_:)``.)
/// The TLS codes of Apple's URLSession (`-1200`, `-1202` and its kin) are
/// ``NetworkError/tls(_:_:)`` as well.
enum TransportFailure {
    static func classify(_ error: URLError) -> NetworkError {
        if let code = error.curlCode { return classify(error, curlCode: code) }
        switch error.code {
        case .cancelled:
            return .cancelled
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot:
            return .tls(.untrustedCertificate, error)
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return .tls(.handshakeFailed, error)
        case .timedOut:
            return .timedOut
        case .badURL:
            return .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? error.localizedDescription)
        case .unsupportedURL:
            // Courier hands URLSession only http(s) URLs and refuses redirects elsewhere, so an
            // "unsupported protocol" is the server's reply unless libcurl names a scheme.
            let message = libcurlMessage(of: error)
            if isProtocolViolation(message) { return .invalidResponse(message) }
            return .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? message)
        case .unknown:
            let message = libcurlMessage(of: error)
            if let failure = proxyFailure(in: message) { return .proxy(failure, error) }
            if isCutShort(message) { return .incompleteBody(error) }
            if let oversized = OversizedHead.fieldsMessage(libcurl: message) { return .invalidResponse(oversized) }
            if isProtocolViolation(message) { return .invalidResponse(message) }
            // FoundationNetworking passes libcurl's TLS failures on as -1 too.
            if message.hasPrefix("SSL certificate problem") || message.contains("target host name") {
                return .tls(.untrustedCertificate, error)
            }
            if isTLSAlert(message) { return .tls(.handshakeFailed, error) }
            return .transport(error)
        case .networkConnectionLost where isTLSAlert(libcurlMessage(of: error)):
            return .tls(.handshakeFailed, error)
        default:
            return .transport(error)
        }
    }

    /// The curl engine keeps libcurl's own code, so nothing needs guessing from messages.
    private static func classify(_ error: URLError, curlCode: Int) -> NetworkError {
        if let refused = error.curlRefusedOption {
            return .curlOptionRefused(option: refused.option, libcurlVersion: refused.libcurlVersion, error)
        }
        let message = libcurlMessage(of: error)
        if let failure = proxyFailure(error, curlCode: curlCode, message: message) { return .proxy(failure, error) }
        switch curlCode {
        case 8, 61: return .invalidResponse(OversizedHead.fieldsMessage(libcurl: message) ?? message)   // weird server reply (Courier's own head parser too), bad content encoding
        case 18: return .incompleteBody(error)          // partial file
        case 28: return .timedOut
        case 42: return .cancelled
        case 3: return .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? message)
        // TLS: the codes curl's own exit statuses are.
        case 60: return .tls(.untrustedCertificate, error)          // peer failed verification
        case 90: return .tls(.pinnedKeyMismatch, error)
        case 58: return .tls(.unusableClientCertificate, error)     // our client certificate or key
        case 77: return .tls(.unreadableCertificateAuthorities, error)
        case 35: return .tls(.handshakeFailed, error)
        // A TLS 1.3 server refuses a client certificate after the handshake, with an alert
        // the first read meets: "SSL_read: ... tlsv13 alert certificate required".
        case 56 where isTLSAlert(message): return .tls(.handshakeFailed, error)
        default:
            // A bad status line is "unsupported protocol" (1), a bad chunk a receive error (56):
            // libcurl's message says which is the server's fault.
            if let oversized = OversizedHead.fieldsMessage(libcurl: message) { return .invalidResponse(oversized) }
            if isProtocolViolation(message) { return .invalidResponse(message) }
            if isCutShort(message) { return .incompleteBody(error) }
            return curlCode == 1 ? .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? message) : .transport(error)
        }
    }

    /// libcurl's error text, which FoundationNetworking passes on as the description.
    private static func libcurlMessage(of error: URLError) -> String {
        error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
    }

    /// Fragments of libcurl's messages (7.x and 8.x) for a reply that breaks HTTP/1.1's syntax.
    private static let protocolViolations = [
        "Unsupported HTTP version", "HTTP/0.9", "Unsupported response code", "Weird server reply",
        "Invalid status line", "Header without colon", "Nul byte in header", "Too large response headers",
        "Invalid Content-Length", "Overflow Content-Length", "chunked-encoding", "chunked-encoded stream", "content unencoding",
        "Unrecognized content encoding",
        // libcurl 8.x
        "Unsupported HTTP/1 subversion", "Invalid response header", "chunk hex-length", "invalid chunk size", "Unsupported Content-Length",
    ]

    /// libcurl's message for a body that ended before its length: "transfer closed with 7 bytes
    /// remaining to read" (and "…with outstanding read data remaining"), or "end of response with
    /// 7 bytes missing" from 8.10.
    private static func isCutShort(_ message: String) -> Bool {
        message.hasPrefix("transfer closed with") || message.hasPrefix("end of response with")
    }

    /// The proxy failure behind a curl-engine error. libcurl's code says "the proxy" only when
    /// its name cannot be resolved (5); a refused tunnel is 56 (libcurl 7.x) or 97 (8.x) with
    /// the proxy's CONNECT status, and a proxy nobody answers at is 7 with its address in the message.
    private static func proxyFailure(_ error: URLError, curlCode: Int, message: String) -> ProxyFailure? {
        switch curlCode {
        case 5:
            return proxyFailure(in: message) ?? .unresolvableHost("(unnamed)")
        case 6:
            // libcurl 8.14.1 now and then ends a proxy it cannot resolve with 6, its message
            // still "Could not resolve proxy: NAME" (seen in scripts/libcurl-matrix).
            guard message.hasPrefix("Could not resolve proxy: ") else { return nil }
            return proxyFailure(in: message)
        case 56, 97:
            if let status = error.curlConnectStatus, !(200...299).contains(status) { return .tunnelRefused(status: status) }
            return proxyFailure(in: message)
        case 7:
            return unreachedProxy(in: message, requestURL: error.failingURL).map(ProxyFailure.connectionRefused)
        default:
            return nil
        }
    }

    /// The proxy failure libcurl's message reports, on either engine: "Could not resolve proxy:
    /// NAME", "CONNECT tunnel failed, response 407" (7.87 and later; before, "Received HTTP code
    /// 407 from proxy after CONNECT").
    private static func proxyFailure(in message: String) -> ProxyFailure? {
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
    private static func unreachedProxy(in message: String, requestURL: URL?) -> String? {
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

    /// Whether libcurl's message reports an alert the server sent to end the TLS session.
    private static func isTLSAlert(_ message: String) -> Bool {
        message.contains("SSL") && message.contains(" alert ")
    }

    private static func isProtocolViolation(_ message: String) -> Bool {
        protocolViolations.contains { message.localizedCaseInsensitiveContains($0) }
    }
}
