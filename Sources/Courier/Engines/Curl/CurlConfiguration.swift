import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything a ``Network`` on the curl engine is made from, in the engine's own terms: what
/// `Network(curl:)` takes instead of a `URLSessionConfiguration`.
///
/// ```swift
/// var settings = CurlConfiguration()
/// settings.headers = ["Accept": "application/json", "X-Client": "inventory-sync"]
/// settings.connection.idleTimeout = 15
/// settings.connection.connectTimeout = 2.5
/// settings.proxies = .servers(http: CurlConfiguration.ProxyServer(host: "proxy.internal", port: 3128), https: nil)
/// let network = try Network(curl: settings)
/// ```
///
/// Each field is something libcurl does: nothing here is read and then ignored, which a
/// `URLSessionConfiguration` cannot promise (<doc:Engines> lists what the curl engine takes from
/// one). A network made from a `URLSessionConfiguration` on the curl engine is made from the
/// `CurlConfiguration` that configuration maps to.
public struct CurlConfiguration: Sendable {
    /// Fields sent with every request, in this order, unless the request sets a field of the
    /// same name. Default: none.
    public var headers: HTTPHeaders
    /// The most connections open at once to one host; 0 for no limit. Default: 6, URLSession's.
    public var maximumConnectionsPerHost: Int
    /// The proxies requests go through. Default: ``Proxies/environment``.
    public var proxies: Proxies
    /// Extra certificate authorities, pinned keys, a client certificate (see ``TLSOptions``).
    public var tls: TLSOptions
    /// HTTP version, Unix socket, rate limits, the idle and connect timeouts, libcurl's own
    /// features (see ``ConnectionOptions``). An idle timeout of `nil` is 60 s, as a
    /// `URLSessionConfiguration`'s `timeoutIntervalForRequest`; `.infinity` is none.
    public var connection: ConnectionOptions
    /// Where cookies are kept: those responses set are stored, and each request sends the ones
    /// for its URL. `nil`: no cookies kept or sent. Default: `HTTPCookieStorage.shared`.
    public var cookies: HTTPCookieStorage?
    /// The HTTP cache (<doc:Caching>). `nil`: none. Default: the memory cache a network made
    /// with `Network()` shares (the one `URLCache.shared` stands for).
    public var cache: HTTPCache?
    /// How requests use ``cache`` unless they say otherwise (``TransferOptions/cachePolicy``).
    /// Default: `.useProtocolCachePolicy`, HTTP's rules.
    public var cachePolicy: URLRequest.CachePolicy

    /// Where a request's proxy comes from.
    public enum Proxies: Sendable, Hashable {
        /// The environment's `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`, as curl
        /// reads them.
        case environment
        /// These proxies, whatever the environment says, for `http` and `https` URLs (the second
        /// through a `CONNECT` tunnel); `nil` connects such URLs directly. `no_proxy` still applies.
        case servers(http: ProxyServer?, https: ProxyServer?)
    }

    /// One proxy: a host name or address (IPv6 in brackets), or a URL whose scheme names the
    /// kind of proxy, as curl's `-x` takes it (`socks5h://127.0.0.1:1080`).
    public struct ProxyServer: Sendable, Hashable {
        /// The host, address or URL.
        public var host: String
        /// The port; `nil` for libcurl's default (1080) or the URL's own.
        public var port: Int?

        /// A proxy at `host` (and `port`).
        public init(host: String, port: Int? = nil) {
            self.host = host
            self.port = port
        }
    }

    /// The defaults of each field; ``cache`` is the shared memory cache (set it to `nil` for none).
    public init(headers: HTTPHeaders = HTTPHeaders(), maximumConnectionsPerHost: Int = 6, proxies: Proxies = .environment,
                tls: TLSOptions = TLSOptions(), connection: ConnectionOptions = ConnectionOptions(),
                cookies: HTTPCookieStorage? = .shared, cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy) {
        self.headers = headers
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.proxies = proxies
        self.tls = tls
        self.connection = connection
        self.cookies = cookies
        self.cache = URLCacheBridge.cache(for: .shared)
        self.cachePolicy = cachePolicy
    }

    /// Why a network cannot be made from this, or `nil` if it can.
    var problem: String? {
        if let problem = connection.problem { return problem }
        if maximumConnectionsPerHost < 0 { return "maximumConnectionsPerHost is \(maximumConnectionsPerHost): it must be 0 (no limit) or more" }
        if case .servers(let http, let https) = proxies,
           let empty = [http, https].compactMap({ $0 }).first(where: { $0.host.isEmpty }) {
            return "a proxy has an empty host (port \(empty.port.map(String.init) ?? "none"))"
        }
        return nil
    }
}
