import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The demo talks to its own server inside the process, on 127.0.0.1: a proxy named by the
/// environment (`http_proxy=...`, common on corporate machines) cannot reach it, and `no_proxy`
/// cannot be counted on to exempt it. So the demo uses no proxy at all, on either engine.
enum DemoProxies {
    /// The variables libcurl reads a proxy from (`HTTP_PROXY` it ignores, but it goes too).
    static let variables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// An ephemeral configuration without proxies. For the curl engine an empty proxy dictionary
    /// replaces the environment's proxies (`CurlProxies`); URLSession on Apple platforms reads it
    /// the same way.
    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        // Every step of the demo is to reach its server: no answer from a cache.
        configuration.urlCache = nil
        return configuration
    }

    /// Removes the proxy variables from this process's environment, for the URLSession engine:
    /// on Linux it ignores `connectionProxyDictionary` and its libcurl reads these variables at
    /// each request, so they are the only lever. Called before the demo starts any thread of its
    /// own (`unsetenv` must not race a `getenv`); the environment is the demo process's alone.
    static func clearEnvironment() {
        for name in variables { unsetenv(name) }
    }
}
