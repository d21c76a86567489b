import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the cache does for one attempt's request, decided before anything is sent.
enum CacheLookup {
    /// Go to the server; store the answer if it may be stored (`stores`). `staleIfError`: a
    /// stored response to fall back on should the server fail (RFC 5861).
    case load(stores: Bool, staleIfError: CachedResponse?)
    /// Answer with this stored response, sending nothing; with `refresh`, it is stale within
    /// its `stale-while-revalidate` window (RFC 5861) and is to be revalidated in the background.
    case serve(CachedResponse, age: TimeInterval, refresh: Bool = false)
    /// Ask the server whether this stored response is still good, with these conditional fields.
    case validate(CachedResponse, conditions: [(name: String, value: String)], staleIfError: CachedResponse?)
    /// The request may only be answered from the cache, and it holds nothing that may answer it:
    /// `.returnCacheDataDontLoad` fails; `Cache-Control: only-if-cached` gets a `504` (RFC 9111 §5.2.1.7).
    case unavailable(onlyIfCached: Bool)
}

/// The rules of RFC 9111 a private cache follows, as pure functions: which requests it may
/// answer, which responses it may keep, and which requests make stored responses invalid.
enum CacheRules {
    /// Whether the cache takes part in a request with these header `fields` (lowercased names)
    /// at all: one that asks for no range and carries no condition of its caller's own (whose
    /// `304` or `206` is the caller's answer). Only `GET`s are asked.
    static func applies(toFields fields: [String: String]) -> Bool {
        // Over the request's few fields, not six lookups (each hashes a name): every request of a
        // network with a cache passes here.
        !fields.keys.contains { name in
            name == "range" || (name.utf8.first == UInt8(ascii: "i") && conditions.contains(name))
        }
    }

    private static let conditions: Set<String> = ["if-range", "if-none-match", "if-modified-since", "if-match", "if-unmodified-since"]

    /// What to do for a request with these header `fields` (lowercased names) under `policy`,
    /// given the responses stored for its URL (read only where the policy needs them).
    static func lookup(fields: [String: String], policy: URLRequest.CachePolicy, stored: () -> [CachedResponse],
                       now: Date) -> CacheLookup {
        let requestControl = CacheControl(fields: fields["cache-control"].map { [$0] } ?? [])
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            return .load(stores: !requestControl.noStore, staleIfError: nil)
        default:
            break
        }
        let match = stored().first { $0.matchesVary(of: fields) }
        switch policy {
        case .returnCacheDataElseLoad:
            if let match { return .serve(match, age: CacheFreshness.age(of: match, now: now)) }
            return .load(stores: !requestControl.noStore, staleIfError: nil)
        case .returnCacheDataDontLoad:
            if let match { return .serve(match, age: CacheFreshness.age(of: match, now: now)) }
            return .unavailable(onlyIfCached: false)
        case .reloadRevalidatingCacheData:
            if let match, let conditions = conditions(for: match) {
                return .validate(match, conditions: conditions, staleIfError: nil)
            }
            return .load(stores: !requestControl.noStore, staleIfError: nil)
        default:
            return byProtocol(requestControl: requestControl, pragmaNoCache: fields["pragma"]?.lowercased().contains("no-cache") ?? false,
                              match: match, now: now)
        }
    }

    /// `.useProtocolCachePolicy`: RFC 9111 §4, with the request's own directives (§5.2.1).
    private static func byProtocol(requestControl: CacheControl, pragmaNoCache: Bool, match: CachedResponse?, now: Date) -> CacheLookup {
        if requestControl.noStore { return .load(stores: false, staleIfError: nil) }
        guard let match else {
            return requestControl.onlyIfCached ? .unavailable(onlyIfCached: true) : .load(stores: true, staleIfError: nil)
        }
        let control = CacheControl(match.headers)
        let age = CacheFreshness.age(of: match, now: now)
        let lifetime = CacheFreshness.lifetime(of: match, control: control)
        // `Pragma: no-cache` counts only where the request has no Cache-Control (RFC 9111 §5.4).
        let mustAsk = requestControl.noCache || control.noCache || (pragmaNoCache && requestControl == CacheControl())
        if !mustAsk {
            // The request's own limits (§5.2.1): no older than its max-age, fresh for min-fresh more.
            let oldest = requestControl.maxAge.map(TimeInterval.init) ?? .infinity
            let needed = TimeInterval(requestControl.minFresh ?? 0)
            if age < oldest, age + needed < lifetime { return .serve(match, age: age) }
            // Stale, and the request accepts it that stale, unless the response forbids it.
            if let maxStale = requestControl.maxStale, !control.mustRevalidate, age < oldest,
               age - lifetime <= TimeInterval(maxStale) {
                return .serve(match, age: age)
            }
        }
        if requestControl.onlyIfCached { return .unavailable(onlyIfCached: true) }
        // Stale within its stale-while-revalidate window: answered now, asked about meanwhile.
        if !mustAsk, !control.mustRevalidate, let window = control.staleWhileRevalidate, age - lifetime <= TimeInterval(window),
           conditions(for: match) != nil {
            return .serve(match, age: age, refresh: true)
        }
        let fallback = staleIfErrorAllowed(match, control: control, age: age, lifetime: lifetime) ? match : nil
        if let conditions = conditions(for: match) { return .validate(match, conditions: conditions, staleIfError: fallback) }
        return .load(stores: true, staleIfError: fallback)
    }

    private static func staleIfErrorAllowed(_ stored: CachedResponse, control: CacheControl, age: TimeInterval, lifetime: TimeInterval) -> Bool {
        guard let window = control.staleIfError, !control.mustRevalidate, !control.noCache else { return false }
        return age - lifetime <= TimeInterval(window)
    }

    /// The conditional fields that ask whether `stored` is still current (RFC 9110 §13.1), or
    /// `nil` where it has no validator.
    static func conditions(for stored: CachedResponse) -> [(name: String, value: String)]? {
        let headers = stored.headers
        var conditions: [(name: String, value: String)] = []
        if let tag = headers["ETag"] { conditions.append((name: "If-None-Match", value: tag)) }
        if let modified = headers["Last-Modified"], HTTPDate.parse(modified) != nil {
            conditions.append((name: "If-Modified-Since", value: modified))
        }
        return conditions.isEmpty ? nil : conditions
    }

    /// Whether `response` to `request` (a `GET` the cache applies to) may be stored (RFC 9111 §3),
    /// and is worth it: one that can never be served or validated is not kept.
    static func mayStore(_ response: HTTPResponse, requestFields fields: [String: String]) -> Bool {
        let status = response.statusCode
        guard status >= 200, status != 206, status != 304, response.url != nil else { return false }
        let control = CacheControl(response.headers)
        if control.noStore || CacheControl(fields: fields["cache-control"].map { [$0] } ?? []).noStore { return false }
        if response.headers.values(for: "Vary").contains(where: { $0.contains("*") }) { return false }
        if fields["authorization"] != nil, !(control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil) { return false }
        let explicit = CacheFreshness.hasExplicitLifetime(response.headers, control: control)
        guard explicit || control.isPublic || control.isPrivate || CacheFreshness.heuristicallyCacheable.contains(status) else { return false }
        // Never fresh, nothing to validate with, no stale-if-error: it could never answer.
        let validators = response.headers["ETag"] != nil || response.headers["Last-Modified"] != nil
        return validators || explicit
    }

    /// The request header values `response`'s `Vary` names (lowercased names).
    static func varying(_ response: HTTPResponse, requestFields fields: [String: String]) -> [(name: String, value: String?)] {
        let names = response.headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { String($0).trimmingWhitespace.lowercased() }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return [] }
        return names.map { (name: $0, value: fields[$0]) }
    }

    /// The URLs whose stored responses a response to an unsafe request makes invalid (RFC 9111
    /// §4.4): the request's, and its `Location` and `Content-Location` on the same origin; none
    /// for a safe method or an error status.
    static func invalidated(by response: HTTPResponse, method: String, requestURL: URL) -> [URL] {
        let safe: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]
        guard !safe.contains(method), (200..<400).contains(response.statusCode) else { return [] }
        var urls = [requestURL]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name], let url = URL(string: value, relativeTo: requestURL)?.absoluteURL,
                  url.scheme == requestURL.scheme, url.host == requestURL.host, url.port == requestURL.port else { continue }
            urls.append(url)
        }
        return urls
    }
}
