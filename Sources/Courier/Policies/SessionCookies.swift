import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cookies a request carries, chosen by Courier where URLSession chooses them badly.
///
/// FoundationNetworking (Linux) sends every cookie stored for the host, whatever its path and
/// its `Secure` flag (a `Secure` cookie goes out over plain http), ignores `Max-Age`, does
/// not apply the storage to a redirect that a session delegate follows, and reads `Set-Cookie`
/// with a date parser that traps on some input. So there Courier turns URLSession's cookie
/// handling off and does both jobs itself, by RFC 6265's rules: it stores what responses set
/// (``store(from:for:now:)``) and sets the `Cookie` header on each attempt and each redirect. As URLSession did, a `Cookie` header the request already has is replaced when the
/// storage has cookies for the URL. On Apple platforms URLSession keeps the job.
final class SessionCookies: Sendable {
    let storage: HTTPCookieStorage

    init(storage: HTTPCookieStorage) {
        self.storage = storage
    }

    /// The configuration for the session, and the cookies Courier applies itself (`nil` when
    /// URLSession keeps doing it, or the configuration sends no cookies).
    static func takeOver(_ configuration: URLSessionConfiguration) -> (URLSessionConfiguration, SessionCookies?) {
        #if canImport(FoundationNetworking)
        guard let cookies = forEngineOwnedCookies(configuration),
              let copy = configuration.copy() as? URLSessionConfiguration else { return (configuration, nil) }
        copy.httpShouldSetCookies = false
        // Nor does FoundationNetworking read `Set-Cookie`: it hands each one to
        // `HTTPCookie.cookies(withResponseHeaderFields:for:)`, which traps on an `Expires` with
        // some non-ASCII characters (measured: `Incorrect range CFRange`, the process ends).
        // Only this policy stops it parsing; Courier stores the cookies itself (``store(from:for:now:)``).
        copy.httpCookieAcceptPolicy = .never
        return (copy, cookies)
        #else
        return (configuration, nil)
        #endif
    }

    /// The cookies of an engine that has no cookie handling of its own (the curl engine): the
    /// configuration's storage, when it sends cookies at all.
    static func forEngineOwnedCookies(_ configuration: URLSessionConfiguration) -> SessionCookies? {
        guard configuration.httpShouldSetCookies, configuration.httpCookieAcceptPolicy != .never,
              let storage = configuration.httpCookieStorage else { return nil }
        return SessionCookies(storage: storage)
    }

    /// Stores the cookies a response from `url` sets (redirects included), on every engine where
    /// Courier keeps the cookies. Read by ``SetCookie``, never by
    /// `HTTPCookie.cookies(withResponseHeaderFields:for:)`, whose date parsing can trap.
    func store(from headers: HTTPHeaders, for url: URL, now: Date = Date()) {
        let values = SetCookie.values(in: headers)
        guard !values.isEmpty else { return }
        let cookies = values.compactMap { SetCookie.parse($0)?.storedCookie(for: url, now: now) }
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }

    /// `request` with the `Cookie` header for its URL, or unchanged when no stored cookie matches.
    func applying(to request: WireRequest, now: Date = Date()) -> WireRequest {
        let url = request.url
        // Longer paths first, then older cookies first (RFC 6265 §5.4), with libcurl's two
        // tie-breaks in between (its cookie_sort): the longer domain, then the longer name. The
        // curl engine sends them in curl's order.
        let cookies = (storage.cookies ?? []).filter { Self.matches($0, url, now: now) }.sorted { lhs, rhs in
            if lhs.path.count != rhs.path.count { return lhs.path.count > rhs.path.count }
            let lhsDomain = lhs.domain.hasPrefix(".") ? lhs.domain.count - 1 : lhs.domain.count
            let rhsDomain = rhs.domain.hasPrefix(".") ? rhs.domain.count - 1 : rhs.domain.count
            if lhsDomain != rhsDomain { return lhsDomain > rhsDomain }
            if lhs.name.count != rhs.name.count { return lhs.name.count > rhs.name.count }
            return (lhs.created ?? 0) < (rhs.created ?? 0)
        }
        guard !cookies.isEmpty else { return request }
        var request = request
        request.set(cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; "), for: "Cookie")
        return request
    }

    /// Whether `cookie` goes with a request to `url`: its domain, its path, `Secure` only over
    /// https, and not expired.
    static func matches(_ cookie: HTTPCookie, _ url: URL, now: Date) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        if cookie.isSecure, url.scheme?.lowercased() != "https" { return false }
        if let expiry = cookie.expiry, expiry <= now { return false }
        let domain = cookie.domain.lowercased()
        let domainMatches = domain.hasPrefix(".")
            ? host == domain.dropFirst() || host.hasSuffix(domain)
            : host == domain
        return domainMatches && pathMatches(cookie.path, url.path.isEmpty ? "/" : url.path)
    }

    /// RFC 6265 §5.1.4: the same path, or a prefix of it that ends at a `/`.
    private static func pathMatches(_ cookiePath: String, _ requestPath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }
}

package extension HTTPCookie {
    /// When the cookie ends: its `Expires`, or its `Max-Age` counted from when it was set (which
    /// FoundationNetworking does not turn into `expiresDate`); `nil` for a session cookie.
    var expiry: Date? {
        if let maxAge = (properties?[HTTPCookiePropertyKey("Max-Age")] as? String).flatMap({ Int($0) }) {
            let created = self.created.map(Date.init(timeIntervalSinceReferenceDate:)) ?? Date()
            return created.addingTimeInterval(TimeInterval(maxAge))
        }
        return expiresDate
    }

    /// When the cookie was stored (seconds since 2001), as FoundationNetworking records it.
    var created: Double? {
        properties?[HTTPCookiePropertyKey("Created")] as? Double
    }
}
