import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the curl engine takes from a `URLSessionConfiguration` (see Courier.docc/Engines.md for the
/// full list of what each engine honours; `connectionProxyDictionary` is read by ``CurlProxies``),
/// plus its TLS options and the features of the libcurl it runs on. Cookies are ``SessionCookies``' business, on both engines.
struct CurlSettings: Sendable {
    /// `httpAdditionalHeaders`, sent with every request unless the request sets the same header.
    let additionalHeaders: [(name: String, value: String)]
    /// `httpMaximumConnectionsPerHost`.
    let maximumConnectionsPerHost: Int
    /// `connectionProxyDictionary`'s HTTP and HTTPS proxies; `nil` leaves libcurl to read the
    /// environment's `http_proxy`, `https_proxy` and `no_proxy`.
    let proxies: CurlProxies?
    let tls: TLSOptions
    /// The HTTP version, a Unix socket, the network's rate limits (see ``CurlConnectionOptions``).
    let connection: ConnectionOptions
    /// The loaded libcurl's version and features, which decide the options the engine sets.
    let features: CurlFeatures
    /// The lists of ``ConnectionOptions/libcurl`` libcurl keeps a pointer to (`--resolve`, `--connect-to`).
    let hostLists: CurlHostLists

    init(configuration: URLSessionConfiguration, tls: TLSOptions, connection: ConnectionOptions = ConnectionOptions(),
         features: CurlFeatures) {
        additionalHeaders = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }.sorted { $0.name < $1.name }
        maximumConnectionsPerHost = configuration.httpMaximumConnectionsPerHost
        proxies = CurlProxies(configuration.connectionProxyDictionary)
        self.tls = tls
        self.connection = connection
        self.features = features
        hostLists = CurlHostLists(connection.libcurl)
    }
}
