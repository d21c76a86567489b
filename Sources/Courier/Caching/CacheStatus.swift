/// Where a response came from, when its network has an ``HTTPCache``: see
/// ``HTTPResponse/cacheStatus``.
///
/// ```swift
/// let page = try await network.response(for: Request<Data>.get(url).withResponse())
/// if page.response.cacheStatus == .cached { print("no request was sent") }
/// ```
public enum CacheStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// From the server, as any response without a cache.
    case network
    /// From the cache, with no request sent: fresh, or allowed stale by the request's policy.
    case cached
    /// From the cache after the server confirmed it (`304 Not Modified`): one request, no body.
    case revalidated
    /// From the cache, stale, because the server could not be reached or failed (`5xx`) and the
    /// response allowed it (`stale-if-error`, RFC 5861).
    case staleAfterError

    /// `network`, `cached`, `revalidated`, `stale after error`.
    public var description: String {
        switch self {
        case .network: "network"
        case .cached: "cached"
        case .revalidated: "revalidated"
        case .staleAfterError: "stale after error"
        }
    }
}
