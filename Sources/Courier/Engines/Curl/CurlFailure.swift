import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a curl-engine transfer failed, in libcurl's terms, and the ``NetworkError`` that means:
/// the engine classifies its own failures before the transfer hears of them (``TransportOutcome``).
///
/// The error callers get carries a `URLError` with the code URLSession gives for the same failure
/// (so that retry policies and error handling written for one engine hold for the other),
/// libcurl's message as its description, and the `CURLcode` under ``codeKey``: curl's
/// command-line exit codes are these very numbers, so `courier` reports exactly what curl would
/// (``Foundation/URLError/curlCode``). Nothing reads that code back to classify it: the
/// classification is made here, from the code itself.
///
/// An option libcurl refused (48 for one it does not know) is
/// ``NetworkError/curlOptionRefused(option:libcurlVersion:_:)``; 8 and 61 are
/// ``NetworkError/invalidResponse(_:)``, 18 ``NetworkError/incompleteBody(_:)``, the TLS codes
/// (35, 58, 60, 77, 90) ``NetworkError/tls(_:_:)`` with the ``TLSFailure`` each means, 5 (the
/// proxy does not resolve), 56 or 97 after a refused `CONNECT`, and 7 when libcurl's message
/// names an address other than the request's (the proxy's) are ``NetworkError/proxy(_:_:)``;
/// 28 (libcurl's stall limit, a backstop behind the idle timeout the transfer watches; a connect
/// timeout the task set is reported by `CurlTask` itself, as ``NetworkError/timedOut(_:)`` of kind
/// ``TimeoutExceeded/Kind/connect``) is ``NetworkError/transport(_:)`` with `URLError.timedOut`;
/// the rest keep their `URLError`.
struct CurlFailure {
    /// `userInfo` key of the `CURLcode` (an `Int`) behind a curl-engine `URLError`.
    static let codeKey = "CourierCurlCode"

    /// libcurl's result code.
    var code: Int32
    /// libcurl's detailed message (its error buffer), or `nil` for the code's own text.
    var detail: String?
    /// The request's URL, for the error and for telling a proxy from the server.
    var url: URL?
    /// The status a proxy answered the tunnel's `CONNECT` with (`CURLINFO_HTTP_CONNECTCODE`), `0` for none.
    var connectStatus = 0
    /// The option libcurl refused and its version, when that is why the transfer never started.
    var refusedOption: (option: String, libcurlVersion: String)?
    /// Whether the task had delivered a response head (libcurl's "out of memory" before one is a
    /// head line too long).
    var headReceived = false
    /// The transfer's metrics, carried by the error.
    var metrics: TransferMetrics?

    /// libcurl's message: the error buffer's, or the code's own text.
    var message: String { detail ?? String(cString: ccurl_easy_strerror(code)) }

    /// The `URLError` the caller's ``NetworkError`` carries.
    var urlError: URLError {
        var userInfo: [String: Any] = [Self.codeKey: Int(code), NSLocalizedDescriptionKey: message]
        if let metrics { userInfo[URLError.transferMetricsKey] = metrics }
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(Self.urlErrorCode(for: code), userInfo: userInfo)
    }

    /// The ``NetworkError`` this failure means.
    var networkError: NetworkError {
        let error = urlError
        let message = self.message
        if let refusedOption {
            return .curlOptionRefused(option: refusedOption.option, libcurlVersion: refusedOption.libcurlVersion, error)
        }
        // 27, CURLE_OUT_OF_MEMORY; 100, CURLE_TOO_LARGE, which libcurl 8.6 and later use.
        if !headReceived, let oversized = LibcurlMessage.oversizedHead(message, outOfMemory: code == 27 || code == 100) {
            return oversized
        }
        if let failure = proxyFailure(message: message) { return .proxy(failure, error) }
        switch Int(code) {
        case 8, 61: return LibcurlMessage.oversizedFields(message) ?? .invalidResponse(message)   // weird server reply (Courier's own head parser too), bad content encoding
        case 18: return .incompleteBody(error)          // partial file
        case 28: return .transport(error)               // the connect or stall limit, not the deadline
        case 42: return .cancelled
        case 3: return .invalidURL(url.map(Redaction.standard.redact) ?? message)
        // TLS: the codes curl's own exit statuses are.
        case 60: return .tls(.untrustedCertificate, error)          // peer failed verification
        case 90: return .tls(.pinnedKeyMismatch, error)
        case 58: return .tls(.unusableClientCertificate, error)     // our client certificate or key
        case 77: return .tls(.unreadableCertificateAuthorities, error)
        case 35: return .tls(.handshakeFailed, error)
        // A TLS 1.3 server refuses a client certificate after the handshake, with an alert
        // the first read meets: "SSL_read: ... tlsv13 alert certificate required".
        case 56 where LibcurlMessage.isTLSAlert(message): return .tls(.handshakeFailed, error)
        default:
            // A bad status line is "unsupported protocol" (1), a bad chunk a receive error (56):
            // libcurl's message says which is the server's fault.
            if let oversized = LibcurlMessage.oversizedFields(message) { return oversized }
            if LibcurlMessage.isProtocolViolation(message) { return .invalidResponse(message) }
            if LibcurlMessage.isCutShort(message) { return .incompleteBody(error) }
            return code == 1 ? .invalidURL(url.map(Redaction.standard.redact) ?? message) : .transport(error)
        }
    }

    /// The proxy failure behind this failure. libcurl's code says "the proxy" only when its name
    /// cannot be resolved (5); a refused tunnel is 56 (libcurl 7.x) or 97 (8.x) with the proxy's
    /// CONNECT status, and a proxy nobody answers at is 7 with its address in the message.
    private func proxyFailure(message: String) -> ProxyFailure? {
        switch Int(code) {
        case 5:
            return LibcurlMessage.proxyFailure(in: message) ?? .unresolvableHost("(unnamed)")
        case 6:
            // libcurl 8.14.1 now and then ends a proxy it cannot resolve with 6, its message
            // still "Could not resolve proxy: NAME" (seen in scripts/libcurl-matrix).
            guard message.hasPrefix("Could not resolve proxy: ") else { return nil }
            return LibcurlMessage.proxyFailure(in: message)
        case 56, 97:
            if connectStatus != 0, !(200...299).contains(connectStatus) { return .tunnelRefused(status: connectStatus) }
            return LibcurlMessage.proxyFailure(in: message)
        case 7:
            return LibcurlMessage.unreachedProxy(in: message, requestURL: url).map(ProxyFailure.connectionRefused)
        default:
            return nil
        }
    }

    /// The `URLError.Code` URLSession gives for the same failure, so that retry policies and
    /// error handling written for one engine hold for the other.
    private static func urlErrorCode(for code: Int32) -> URLError.Code {
        switch Int(code) {
        case Int(CCURLE_UNSUPPORTED_PROTOCOL): return .unsupportedURL
        case Int(CCURLE_URL_MALFORMAT): return .badURL
        case Int(CCURLE_COULDNT_RESOLVE_HOST), Int(CCURLE_COULDNT_RESOLVE_PROXY): return .cannotFindHost
        case Int(CCURLE_COULDNT_CONNECT): return .cannotConnectToHost
        case Int(CCURLE_OPERATION_TIMEDOUT): return .timedOut
        case Int(CCURLE_PARTIAL_FILE), Int(CCURLE_RECV_ERROR), Int(CCURLE_SEND_ERROR): return .networkConnectionLost
        case Int(CCURLE_WEIRD_SERVER_REPLY), Int(CCURLE_GOT_NOTHING): return .badServerResponse
        case Int(CCURLE_TOO_MANY_REDIRECTS): return .httpTooManyRedirects
        case Int(CCURLE_BAD_CONTENT_ENCODING): return .cannotDecodeContentData
        case Int(CCURLE_PEER_FAILED_VERIFICATION), Int(CCURLE_SSL_PINNEDPUBKEYNOTMATCH): return .serverCertificateUntrusted
        case Int(CCURLE_SSL_CERTPROBLEM): return .clientCertificateRejected
        case Int(CCURLE_SSL_CONNECT_ERROR), Int(CCURLE_SSL_CACERT_BADFILE): return .secureConnectionFailed
        case Int(CCURLE_ABORTED_BY_CALLBACK): return .cancelled
        case Int(CCURLE_READ_ERROR): return .cannotOpenFile
        default: return .unknown
        }
    }
}

extension URLError {
    /// The libcurl result code behind an error of the curl engine, or `nil` (URLSession).
    /// `package`: the `courier` tool exits with it, as curl does. Courier itself never reads it.
    package var curlCode: Int? { userInfo[CurlFailure.codeKey] as? Int }
}
