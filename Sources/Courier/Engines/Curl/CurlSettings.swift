import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the curl engine works from: its ``CurlConfiguration`` (made from a
/// `URLSessionConfiguration` where the network was), in the forms libcurl's options take, and
/// the features of the libcurl it runs on. Cookies and the cache belong to the core, on both engines.
/// A class: every request reads it, and a struct of this many parts was copied (each part
/// retained and released) each time it was handed on.
final class CurlSettings: Sendable {
    /// The configuration's ``CurlConfiguration/headers``, sent with every request unless the
    /// request sets the same header.
    let additionalHeaders: [(name: String, value: String)]
    let maximumConnectionsPerHost: Int
    /// The configuration's proxies; `nil` leaves libcurl to read the environment's
    /// `http_proxy`, `https_proxy` and `no_proxy`.
    let proxies: CurlProxies?
    let tls: TLSOptions
    /// The HTTP version, a Unix socket, the network's rate limits (see ``CurlConnectionOptions``).
    let connection: ConnectionOptions
    /// The loaded libcurl's version and features, which decide the options the engine sets.
    let features: CurlFeatures
    /// The lists of ``ConnectionOptions/libcurl`` libcurl keeps a pointer to (`--resolve`, `--connect-to`).
    let hostLists: CurlHostLists
    /// Whether ``ConnectionOptions/libcurl`` sets anything (``CurlPassThrough``): decided once
    /// here, where asking on each request (a default value made and compared field by field, the
    /// options copied on the way) was about 1,000 instructions.
    let passesLibcurlOptions: Bool

    init(configuration: CurlConfiguration, features: CurlFeatures) {
        additionalHeaders = Array(configuration.headers)
        maximumConnectionsPerHost = configuration.maximumConnectionsPerHost
        proxies = CurlProxies(configuration.proxies)
        tls = configuration.tls
        connection = configuration.connection
        self.features = features
        hostLists = CurlHostLists(configuration.connection.libcurl)
        passesLibcurlOptions = configuration.connection.libcurl != LibcurlOptions()
    }
}
