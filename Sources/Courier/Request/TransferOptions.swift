import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one request sets for itself over its network's defaults: how long its connection may
/// stall or take to open (over ``ConnectionOptions/idleTimeout`` and
/// ``ConnectionOptions/connectTimeout``), how the network's ``HTTPCache`` answers it, whether it
/// follows redirects and how many, and whether its body is decoded: the options a request carries
/// besides its deadline (``NetworkRequest/timeout``) and rate limit (``NetworkRequest/rateLimit``).
/// Each `nil` field keeps the network's value.
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
    /// Whether this request follows redirects; `nil` for the network's
    /// (``Network/followsRedirects``), which says what `false` means.
    ///
    /// ```swift
    /// var probe = Request<Data>.get(shortLink).accepting(statusCodes: Set(200..<400))
    /// probe.transferOptions.followsRedirects = false   // the 3xx itself is the answer
    /// ```
    public var followsRedirects: Bool?
    /// How many redirects this request follows before failing with
    /// ``NetworkError/tooManyRedirects(_:)``; `nil` for the network's
    /// (``Network/maximumRedirects``). A negative value is taken as 0.
    public var maximumRedirects: Int?
    /// Whether the engine offers compressed codings for this request and decodes what comes
    /// back; `nil` for the network's (``Network/decompressesResponses``, which says what each
    /// engine can do: URLSession always decodes).
    public var decompressesResponses: Bool?
    /// The version of HTTP this request asks for; `nil` for the network's
    /// (``ConnectionOptions/httpVersion``). The curl engine only: elsewhere a request asking for
    /// another than ``HTTPVersionPreference/http2`` (the default) fails with
    /// ``NetworkError/invalidRequest(_:)`` before anything is sent.
    ///
    /// ```swift
    /// var legacy = Request<Data>.get(url)
    /// legacy.transferOptions.httpVersion = .http1_1   // this server's HTTP/2 is broken
    /// ```
    public var httpVersion: HTTPVersionPreference?

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

    /// Whether the request sets any of the network's HTTP behaviours for itself (redirects,
    /// decoding): the transfer's settings are then made again with them.
    var overridesSettings: Bool {
        followsRedirects != nil || maximumRedirects != nil || decompressesResponses != nil
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
