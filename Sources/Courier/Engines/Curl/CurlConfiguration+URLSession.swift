import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlConfiguration {
    /// What a `URLSessionConfiguration` means to the curl engine (<doc:Engines> lists it): its
    /// extra headers (by name, as a dictionary has no order), connections per host, proxy
    /// dictionary (``CurlProxies``), cookie storage when cookies are on, cache and cache policy,
    /// and `timeoutIntervalForRequest` as the idle timeout unless `connection` has one.
    init(_ configuration: URLSessionConfiguration, tls: TLSOptions, connection: ConnectionOptions) {
        let headers = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }.sorted { $0.name < $1.name }
        var connection = connection
        if connection.idleTimeout == nil {
            // A configuration's 0, negative or NaN interval means no limit (the options refuse those).
            let interval = configuration.timeoutIntervalForRequest
            connection.idleTimeout = interval.isFinite && interval > 0 ? interval : .infinity
        }
        self.init(headers: HTTPHeaders(headers), maximumConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
                  proxies: CurlProxies(configuration.connectionProxyDictionary).map(Proxies.init) ?? .environment,
                  tls: tls, connection: connection,
                  cookies: SessionCookies.forEngineOwnedCookies(configuration)?.storage,
                  cachePolicy: configuration.requestCachePolicy)
        cache = URLCacheBridge.cache(for: configuration)
    }
}

extension CurlConfiguration.Proxies {
    /// The proxies of a configuration's proxy dictionary.
    init(_ proxies: CurlProxies) {
        self = .servers(http: proxies.http, https: proxies.https)
    }
}
