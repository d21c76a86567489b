import Foundation

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2): pure arithmetic
/// over its head and the times it was asked for and came, hostile values included (a negative
/// `Age`, dates from another millennium, lifetimes past 2^31 seconds) — none of which can make
/// a stale response fresh.
enum CacheFreshness {
    /// The longest heuristic lifetime (§4.2.2): a tenth of the time since `Last-Modified`, but
    /// never more than a day, so that an old file's answer is checked again daily.
    static let heuristicLimit: TimeInterval = 86_400

    /// Status codes a response may be kept for without explicit freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Its current age (§4.2.3), in seconds, at `now`.
    static func age(of stored: CachedResponse, now: Date) -> TimeInterval {
        let headers = stored.headers
        let date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? stored.responseTime
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(date))
        // A negative or malformed Age is no age (§5.1): `seconds` reads it as 0.
        let ageValue = TimeInterval(CacheControl.seconds(headers["Age"]?.trimmingWhitespace))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let initialAge = max(apparentAge, ageValue + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return initialAge + residentTime
    }

    /// How long it is fresh from its origin (§4.2.1): `max-age`, else `Expires` less `Date`,
    /// else the heuristic; 0 for none. An `Expires` that is no date has passed already.
    static func lifetime(of stored: CachedResponse, control: CacheControl) -> TimeInterval {
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let headers = stored.headers
        let date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? stored.responseTime
        if let expires = headers["Expires"] {
            guard let when = HTTPDate.parse(expires) else { return 0 }
            return min(max(0, when.timeIntervalSince(date)), TimeInterval(CacheControl.largestDelta))
        }
        guard heuristicallyCacheable.contains(stored.statusCode),
              let modified = headers["Last-Modified"].flatMap({ HTTPDate.parse($0) }) else { return 0 }
        return min(max(0, date.timeIntervalSince(modified) / 10), heuristicLimit)
    }

    /// Whether it has a lifetime of its own (`max-age` or `Expires`), not a heuristic one.
    static func hasExplicitLifetime(_ headers: HTTPHeaders, control: CacheControl) -> Bool {
        control.maxAge != nil || headers["Expires"] != nil
    }
}
