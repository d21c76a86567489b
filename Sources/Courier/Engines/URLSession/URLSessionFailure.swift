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
/// libcurl's other wordings of these (other versions) are recognised too: see ``LibcurlMessage``.
///
/// The URLSession engine classifies its own failures here, before the transfer hears of them
/// (``TransportOutcome``); the curl engine does the same from libcurl's code (`CurlFailure`).
/// `URLError.timedOut` is URLSession's idle timeout (the request's `timeoutInterval`), which
/// stays a ``NetworkError/transport(_:)``: ``NetworkError/timedOut(_:)`` is the request's own
/// deadline, which only Courier enforces. (URLSession's `-1004` does not say whether the proxy
/// or the server refused: it stays a ``NetworkError/transport(_:)`` too.) The TLS codes of
/// Apple's URLSession (`-1200`, `-1202` and its kin) are ``NetworkError/tls(_:_:)``.
enum URLSessionFailure {
    /// How a task ended, from what URLSession reported: `error` (`nil` for success) and whether
    /// a response head had come (libcurl's "out of memory" before one is a head line too long).
    /// `request` is the task's: FoundationNetworking's errors often lack the URL, and its idle
    /// timeout's says neither where nor how long; both are filled in from it.
    static func outcome(of error: (any Error)?, headReceived: Bool, request: URLRequest? = nil) -> TransportOutcome {
        guard let error else { return .completed }
        guard var urlError = error as? URLError else {
            return .failed(.transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error])))
        }
        if let request { urlError = located(urlError, by: request) }
        if !headReceived, let oversized = oversizedHead(urlError) { return .failed(oversized) }
        return .failed(classify(urlError))
    }

    /// `error` with the request's URL where it names none, and, for URLSession's idle timeout,
    /// the limit that passed.
    private static func located(_ error: URLError, by request: URLRequest) -> URLError {
        var userInfo = error.userInfo
        if error.failingURL == nil, let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        if error.code == .timedOut {
            let seconds = request.timeoutInterval
            userInfo[NSLocalizedDescriptionKey] = "no byte for \(seconds == seconds.rounded() && abs(seconds) < 1e15 ? "\(Int64(seconds))" : "\(seconds)") s, "
                + "URLSession's idle timeout (the request's timeoutInterval)"
        }
        return URLError(error.code, userInfo: userInfo)
    }

    /// A head larger than libcurl reads, which FoundationNetworking reports as `-1` with
    /// libcurl's words (see ``OversizedHead``).
    private static func oversizedHead(_ error: URLError) -> NetworkError? {
        guard let message = error.userInfo[NSLocalizedDescriptionKey] as? String else { return nil }
        return LibcurlMessage.oversizedHead(message, outOfMemory: error.code == .unknown && message == "Out of memory")
    }

    /// The ``NetworkError`` a `URLError` of URLSession means.
    static func classify(_ error: URLError) -> NetworkError {
        switch error.code {
        case .cancelled:
            return .cancelled
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot:
            return .tls(.untrustedCertificate, error)
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return .tls(.handshakeFailed, error)
        case .badURL:
            return .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? error.localizedDescription)
        case .unsupportedURL:
            // Courier hands URLSession only http(s) URLs and refuses redirects elsewhere, so an
            // "unsupported protocol" is the server's reply unless libcurl names a scheme.
            let message = libcurlMessage(of: error)
            if LibcurlMessage.isProtocolViolation(message) { return .invalidResponse(message) }
            return .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? message)
        case .unknown:
            let message = libcurlMessage(of: error)
            if let failure = LibcurlMessage.proxyFailure(in: message) { return .proxy(failure, error) }
            if LibcurlMessage.isCutShort(message) { return .incompleteBody(error) }
            if let oversized = LibcurlMessage.oversizedFields(message) { return oversized }
            if LibcurlMessage.isProtocolViolation(message) { return .invalidResponse(message) }
            // FoundationNetworking passes libcurl's TLS failures on as -1 too.
            if LibcurlMessage.isUntrustedCertificate(message) {
                return .tls(.untrustedCertificate, error)
            }
            if LibcurlMessage.isTLSAlert(message) { return .tls(.handshakeFailed, error) }
            return .transport(error)
        case .networkConnectionLost where LibcurlMessage.isTLSAlert(libcurlMessage(of: error)):
            return .tls(.handshakeFailed, error)
        default:
            return .transport(error)
        }
    }

    /// libcurl's error text, which FoundationNetworking passes on as the description.
    private static func libcurlMessage(of error: URLError) -> String {
        error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
    }
}
