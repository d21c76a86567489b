import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sentences ``NetworkError/transport(_:)`` and ``NetworkError/incompleteBody(_:)`` are
/// described with: what happened, with which host, and what to try, instead of Foundation's
/// `Error Domain=NSURLErrorDomain Code=-1 "(null)" UserInfo={…}` (which also shows the failing
/// URL, password and all).
///
/// The URL comes from the error's `failingURL` (both engines set it), shown through the
/// redaction; libcurl's own message, when there is one, is kept as the detail.
enum TransportDescription {
    static func sentence(for error: URLError, redacting redaction: Redaction) -> String {
        let place = address(of: error.failingURL)
        let detail = reason(of: error, redacting: redaction)
        let what: String
        switch error.code {
        case .cannotConnectToHost:
            // libcurl's "Failed to connect to … port …: Couldn't connect to server" says no more.
            what = "Could not connect to \(place) (connection refused): is the server running, and listening on that port?"
        case .cannotFindHost, .dnsLookupFailed:
            let host = error.failingURL?.host ?? "the host"
            what = "Could not resolve the host name \(host)\(detail.map { " (\($0))" } ?? ""): check its spelling and the network's DNS."
        case .networkConnectionLost:
            what = "The connection to \(place) was lost\(detail.map { " (\($0))" } ?? ""): the server or a proxy closed or reset it; trying again may work."
        case .badServerResponse:
            what = "\(place.prefix(1).uppercased() + place.dropFirst()) closed the connection without sending a reply\(detail.map { " (\($0))" } ?? ""): "
                + "the server may have failed, or may not speak HTTP on that port."
        case .notConnectedToInternet:
            what = "No network connection to reach \(place)."
        case .timedOut:
            what = "No answer from \(place) in time\(detail.map { " (\($0))" } ?? "")."
        case .cancelled:
            what = "The transfer with \(place) was cancelled."
        default:
            what = "The transfer with \(place) failed (\(detail ?? "URLError \(error.code.rawValue)"))."
        }
        return what + url(of: error, redacting: redaction)
    }

    static func incompleteBody(_ error: URLError, redacting redaction: Redaction) -> String {
        let detail = reason(of: error, redacting: redaction).map { " (\($0))" } ?? ""
        return "The connection to \(address(of: error.failingURL)) closed before the body was complete\(detail): "
            + "the server or a proxy cut it short; trying again may work." + url(of: error, redacting: redaction)
    }

    /// `host:port` of `url` (the scheme's port when it names none); "the server" without one.
    static func address(of url: URL?) -> String {
        guard let url, let host = url.host, !host.isEmpty else { return "the server" }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(shown):\(port)"
    }

    /// libcurl's message (or Foundation's), unless it is only Foundation's placeholder.
    private static func reason(of error: URLError, redacting redaction: Redaction) -> String? {
        guard let message = error.userInfo[NSLocalizedDescriptionKey] as? String, !message.isEmpty else { return nil }
        return redaction.redact(text: message)
    }

    private static func url(of error: URLError, redacting redaction: Redaction) -> String {
        error.failingURL.map { " URL: \(redaction.redact($0))" } ?? ""
    }
}
