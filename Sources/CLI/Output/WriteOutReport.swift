import Courier
import Foundation

/// What `-w` reports about one transfer: the facts of its last attempt.
struct WriteOutReport: Sendable {
    /// The last response (a redirect left unfollowed included), or `nil` when none came.
    var response: HTTPResponse?
    /// The heads of the redirects followed, in order (`%{size_header}` counts them too).
    var redirectHeads: [HTTPResponse] = []
    /// The metrics of the last attempt's transfer, where the engine reported them: the wire
    /// variables (times, addresses, connections, the protocol) are read from them.
    var metrics: TransferMetrics?
    /// The URL of the last request sent, after redirects.
    var effectiveURL: URL
    /// The URL as typed (`%{url}`) and its position on the line (`%{urlnum}`).
    var urlText: String
    var urlIndex: Int
    var method: String
    var retryCount: Int = 0
    var exitCode: ExitCode = .ok
    var errorMessage: String?
    /// Body bytes received from the last response.
    var downloadSize: Int64 = 0
    /// Body bytes sent.
    var uploadSize: Int64 = 0
    /// Seconds from the start of the last attempt to its end.
    var totalTime: TimeInterval = 0
    /// The output file, or `nil` for stdout.
    var filename: String?
    /// The `Referer` sent, if any.
    var referer: String?
    /// Whether redirects were followed (`-L`): `%{redirect_url}` is for those that were not.
    var followsRedirects = false
    /// The status libcurl reports instead of the response's: 304 for a `-z` not met.
    var simulatedStatus: Int?

    /// `%{http_code}`, `%{response_code}`.
    var statusCode: Int { simulatedStatus ?? response?.statusCode ?? 0 }

    /// `%{redirect_url}`: where the last response would redirect to, when it is a redirect
    /// that was not followed, resolved against the URL that sent it; a URL without a path gets
    /// `/`, as libcurl writes every URL it parses (`https://moo.moo.moo/`).
    var redirectURL: String? {
        guard let response, (300...399).contains(response.statusCode), let location = response.headers["Location"],
              var target = URL(string: location, relativeTo: effectiveURL)?.absoluteURL else { return nil }
        if var components = URLComponents(url: target, resolvingAgainstBaseURL: false), components.host != nil,
           components.percentEncodedPath.isEmpty, let withPath = { components.percentEncodedPath = "/"; return components.url }() {
            target = withPath
        }
        return Redaction.standard.redact(target)
    }

    /// `%{size_header}`: the bytes of every head received, as written by ``HeadText``.
    var headerSize: Int64 {
        (redirectHeads + (response.map { [$0] } ?? [])).reduce(0) { $0 + Int64(HeadText.bytes(of: $1).count) }
    }
}
