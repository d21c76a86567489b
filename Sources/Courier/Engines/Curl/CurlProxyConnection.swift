import CCurl
import Foundation

/// `Proxy-Connection: Keep-Alive` where curl sends it, for a request to an HTTP proxy.
///
/// libcurl writes that line from its own code, right after `Host` when every other field comes
/// in the custom list as Courier hands them over (see ``CurlHeaderOrder``); curl sends it after
/// `Referer`. Courier writes it in the custom list, in curl's place, and removes libcurl's own
/// with an empty `Proxy-Connection:` in the proxy's list (`CURLOPT_PROXYHEADER`), which libcurl
/// checks for its line and never sends (an empty value is a removal). Only the custom list would
/// not do: libcurl 7.74 then sent both lines (measured), 7.88 one.
///
/// Only for a request that surely goes to an HTTP proxy as a proxy request: an http URL, the
/// network's own proxy (curl's `-x`), no tunnel (`-p`), no `no_proxy` list that could send it
/// straight to the server. Otherwise libcurl's line stays libcurl's.
enum CurlProxyConnection {
    /// Whether `url` goes to an HTTP proxy, untunnelled, by `settings`.
    static func applies(to url: URL?, settings: CurlSettings) -> Bool {
        guard let url, isHTTP(url), let proxies = settings.proxies,
              let proxy = proxies.proxy(for: url)?.host, !proxy.isEmpty,
              !settings.connection.libcurl.proxyTunnel, settings.connection.libcurl.noProxy == nil,
              !environmentHasNoProxyList else { return false }
        guard let schemeEnd = proxy.range(of: "://") else { return true }
        return proxy[..<schemeEnd.lowerBound].lowercased() == "http"
    }

    /// Whether `url` is plain http, its scheme compared without a lowered copy.
    private static func isHTTP(_ url: URL) -> Bool {
        guard let scheme = url.scheme, scheme.utf8.count == 4 else { return false }
        return zip(scheme.utf8, "http".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The proxy list that removes libcurl's own line: made once, never freed (one small list
    /// for the process, read by every handle that uses it).
    nonisolated(unsafe) static let ownLineRemoved: OpaquePointer? = ccurl_slist_append(nil, "Proxy-Connection:")   // immutable after creation; libcurl only reads it

    /// Whether the environment names hosts reached without the proxy (`no_proxy`, which libcurl
    /// applies to the network's proxy too), read once: the environment is a dictionary of every
    /// variable, too costly to build for each request.
    private static let environmentHasNoProxyList: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return ["no_proxy", "NO_PROXY"].contains { !(environment[$0] ?? "").isEmpty }
    }()
}
