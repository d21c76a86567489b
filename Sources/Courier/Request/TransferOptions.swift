import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long one request's connection may stall or take to open, over the network's defaults
/// (``ConnectionOptions/idleTimeout``, ``ConnectionOptions/connectTimeout``): the options a
/// request carries besides its deadline (``NetworkRequest/timeout``) and rate limit
/// (``NetworkRequest/rateLimit``). Each `nil` field keeps the network's value.
///
/// ```swift
/// var download = Request<Data>.get(isoURL)
/// download.timeout = .infinity                  // no deadline for the whole transfer…
/// download.transferOptions.idleTimeout = 10     // …but 10 s without a byte is a stall
/// download.transferOptions.connectTimeout = 2.5 // and 2.5 s to connect
/// ```
///
/// Both are limits of one attempt: passing one ends that attempt with
/// ``NetworkError/timedOut(_:)`` of kind ``TimeoutExceeded/Kind/idle`` or
/// ``TimeoutExceeded/Kind/connect``, which the retry policy may repeat (the deadline covers all
/// attempts and is never retried). Fractional seconds count on both engines. See <doc:Resilience>.
public struct TransferOptions: Sendable, Hashable {
    /// No byte received or sent for this many seconds is a stall; `nil` for the network's
    /// (``ConnectionOptions/idleTimeout``), `.infinity` for none. A time the request holds a
    /// chunk itself (a stream whose consumer has not made room) does not count.
    public var idleTimeout: TimeInterval?
    /// No connection within this many seconds fails the attempt; `nil` for the network's
    /// (``ConnectionOptions/connectTimeout``), `.infinity` for none. On the curl engine it ends
    /// when the connection is made (TCP, and TLS for https, or a proxy's tunnel); URLSession
    /// reports no such moment, so there it ends with the first byte that arrives or leaves.
    public var connectTimeout: TimeInterval?
    /// How the network's ``HTTPCache`` answers this request; `nil` for the request's own
    /// `URLRequest.cachePolicy` where it sets one, else the network's (its configuration's
    /// `requestCachePolicy`). Each case means what it means on Apple platforms: see <doc:Caching>.
    ///
    /// ```swift
    /// var offline = Request<Data>.get(url)
    /// offline.transferOptions.cachePolicy = .returnCacheDataDontLoad   // never the server
    /// ```
    public var cachePolicy: URLRequest.CachePolicy?

    /// Options with the given values; `nil` keeps the network's.
    ///
    /// ```swift
    /// let patient = TransferOptions(idleTimeout: 120)
    /// ```
    public init(idleTimeout: TimeInterval? = nil, connectTimeout: TimeInterval? = nil) {
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
    }

    /// Options with the given values, a cache policy among them; `nil` keeps the network's.
    ///
    /// ```swift
    /// let fresh = TransferOptions(cachePolicy: .reloadIgnoringLocalCacheData)
    /// ```
    public init(idleTimeout: TimeInterval? = nil, connectTimeout: TimeInterval? = nil, cachePolicy: URLRequest.CachePolicy?) {
        self.init(idleTimeout: idleTimeout, connectTimeout: connectTimeout)
        self.cachePolicy = cachePolicy
    }

    /// Why these options mean nothing (a negative or NaN timeout), or `nil`.
    var problem: String? {
        Self.problem(idleTimeout, "idleTimeout") ?? Self.problem(connectTimeout, "connectTimeout")
    }

    static func problem(_ value: TimeInterval?, _ name: String) -> String? {
        guard let value else { return nil }
        if value.isNaN { return "the \(name) is not a number" }
        if value <= 0 { return "the \(name) \(value) is not positive (use .infinity for none)" }
        return nil
    }
}
