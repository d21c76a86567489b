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
/// | `Content-Length: abc` | -1 | Invalid Content-Length: value | ``NetworkError/invalidResponse(_:)`` |
/// | NUL in a header | -1 | Nul byte in header | ``NetworkError/invalidResponse(_:)`` |
/// | gzip that is not gzip | -1 | Error while processing content unencoding: ... | ``NetworkError/invalidResponse(_:)`` |
/// | body shorter than `Content-Length` | -1 | transfer closed with 7 bytes remaining to read | ``NetworkError/incompleteBody(_:)`` |
/// | chunked body without last chunk | -1 | transfer closed with outstanding read data remaining | ``NetworkError/incompleteBody(_:)`` |
/// | closes without a byte | -1011 | Empty reply from server | ``NetworkError/transport(_:)`` as is |
/// | resets the connection | -1005 | Recv failure: Connection reset by peer | ``NetworkError/transport(_:)`` as is |
///
/// Any other `-1` (a libcurl code FoundationNetworking does not translate) stays a
/// ``NetworkError/transport(_:)`` with libcurl's message.
///
/// The curl engine's errors carry their `CURLcode` (``CurlError``): 8 and 61 are
/// ``NetworkError/invalidResponse(_:)``, 18 ``NetworkError/incompleteBody(_:)``, the rest
/// keep their `URLError`.
enum TransportFailure {
    static func classify(_ error: URLError) -> NetworkError {
        if let code = error.curlCode { return classify(error, curlCode: code) }
        switch error.code {
        case .cancelled:
            return .cancelled
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
            if message.hasPrefix("transfer closed with") { return .incompleteBody(error) }
            if isProtocolViolation(message) { return .invalidResponse(message) }
            return .transport(error)
        default:
            return .transport(error)
        }
    }

    /// The curl engine keeps libcurl's own code, so nothing needs guessing from messages.
    private static func classify(_ error: URLError, curlCode: Int) -> NetworkError {
        let message = libcurlMessage(of: error)
        switch curlCode {
        case 8, 61: return .invalidResponse(message)   // weird server reply, bad content encoding
        case 18: return .incompleteBody(error)          // partial file
        case 28: return .timedOut
        case 42: return .cancelled
        case 3: return .invalidURL(error.failingURL.map(Redaction.standard.redact) ?? message)
        default:
            // A bad status line is "unsupported protocol" (1), a bad chunk a receive error (56):
            // libcurl's message says which is the server's fault.
            if isProtocolViolation(message) { return .invalidResponse(message) }
            if message.hasPrefix("transfer closed with") { return .incompleteBody(error) }
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
        "Invalid Content-Length", "Overflow Content-Length", "chunked-encoding", "content unencoding",
        "Unrecognized content encoding",
    ]

    private static func isProtocolViolation(_ message: String) -> Bool {
        protocolViolations.contains { message.localizedCaseInsensitiveContains($0) }
    }
}
