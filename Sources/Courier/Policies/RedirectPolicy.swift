import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How Courier follows a redirect, on top of what URLSession proposes.
///
/// - `307` and `308` must repeat the request as it was (RFC 9110 §15.4.8–9): same method and same
///   body. URLSession on Linux keeps the method but drops the body (an in-memory body and one
///   streamed from a file alike), so for a request with a body Courier stops URLSession's
///   redirect and sends the request again itself, with a new task.
/// - `301`, `302` and `303` follow URLSession's rewrite (a `POST` becomes a `GET` without body),
///   and the `GET` goes without the body's `Content-Type` and `Content-Length`.
/// - A redirect to another origin (scheme, host, port) drops `Authorization`,
///   `Proxy-Authorization` and `Cookie`: credentials meant for one server must not reach another.
/// - A redirect to a scheme other than http and https is refused
///   (``NetworkError/unsupportedRedirect(_:_:)``). It has to be judged by the `Location` header
///   itself: FoundationNetworking rewrites `file:///etc/passwd` (and `javascript:`, `data:`,
///   `mailto:`...) into `http://<same origin>/etc/passwd` before the delegate sees it, and
///   proposes `ftp:`, `gopher:`, `dict:` as they are (libcurl then fails with "unsupported URL").
///   Relative references (`/x`, `x`, `//host/x`) have no scheme and are followed.
/// - The redirected request carries the cookies the session's cookie storage holds for its URL,
///   those the redirect response just set included (see ``SessionCookies``): FoundationNetworking
///   would repeat the previous hop's `Cookie` header and miss the new ones.
enum RedirectPolicy {
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// The scheme (lowercased) a redirect leads to when Courier must not follow it, or `nil`
    /// when it is http, https or a relative reference.
    static func refusedScheme(of response: HTTPResponse, proposed: WireRequest) -> String? {
        let location = response.headers["Location"]?.trimmingCharacters(in: .whitespaces) ?? ""
        if let scheme = scheme(of: location), !isHTTP(scheme) { return scheme.lowercased() }
        // Whatever FoundationNetworking made of it must be http(s) too.
        if let scheme = proposed.url.scheme, !isHTTP(scheme) { return scheme.lowercased() }
        return nil
    }

    /// The scheme of a URI reference (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`
    /// or `.`, then `:`), or `nil` for a relative reference.
    static func scheme(of reference: String) -> String? {
        guard let colon = reference.firstIndex(of: ":") else { return nil }
        let candidate = reference[..<colon]
        guard let first = candidate.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        let valid = candidate.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
        return valid ? String(candidate) : nil
    }

    private static func isHTTP(_ scheme: String) -> Bool {
        let lowered = scheme.lowercased()
        return lowered == "http" || lowered == "https"
    }

    /// `keepsCredentials`: curl's `--location-trusted` (``LibcurlOptions/sendsCredentialsToOtherHosts``):
    /// the credential headers go to another origin too.
    static func request(following response: HTTPResponse, proposed: WireRequest, previous: WireRequest?, original: WireRequest?,
                        keepsCredentials: Bool = false) -> WireRequest {
        var next = proposed
        if [307, 308].contains(response.statusCode), let previous {
            next = previous
            next.url = proposed.url
        }
        let before = (previous ?? original)?.method ?? "GET"
        if before != "GET", before != "HEAD", next.method == "GET" {
            // A body turned into a GET (301, 302, 303) leaves its description behind too:
            // FoundationNetworking kept the POST's Content-Type on the GET.
            next.body = nil
            next.set(nil, for: "Content-Type")
            next.set(nil, for: "Content-Length")
        }
        if !keepsCredentials, let from = original?.url, !sameOrigin(from, next.url) {
            for name in credentialHeaders { next.set(nil, for: name) }
        }
        return next
    }

    /// Whether a redirect must repeat a body that FoundationNetworking would drop: an in-memory
    /// one (`httpBody`) or one the task uploads from a file (`bodyFromFile`).
    static func mustReplayBody(_ response: HTTPResponse, _ request: WireRequest?, bodyFromFile: Bool) -> Bool {
        [307, 308].contains(response.statusCode) && (bodyFromFile || !(request?.body?.isEmpty ?? true))
    }

    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
