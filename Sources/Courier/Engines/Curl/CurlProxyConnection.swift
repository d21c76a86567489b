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
/// Only for a request that surely goes to an HTTP proxy (or an https one) as a proxy request: an http URL, the
/// network's own proxy (curl's `-x`), no tunnel (`-p`), no `no_proxy` list that could send it
/// straight to the server (a `--noproxy` list that does not name the host is read: see
/// ``mayBypass(_:_:)``). Otherwise libcurl's line stays libcurl's.
enum CurlProxyConnection {
    /// Whether `url` goes to an HTTP proxy, untunnelled, by `settings`.
    static func applies(to url: URL?, settings: CurlSettings) -> Bool {
        guard let url, isHTTP(url), let proxies = settings.proxies,
              let proxy = proxies.proxy(for: url)?.host, !proxy.isEmpty,
              !settings.connection.libcurl.proxyTunnel else { return false }
        if let noProxy = settings.connection.libcurl.noProxy {
            // libcurl reads the option instead of the environment's list.
            guard !mayBypass(url.host ?? "", noProxy) else { return false }
        } else if environmentHasNoProxyList {
            return false
        }
        guard let schemeEnd = proxy.range(of: "://") else { return true }
        // An https proxy (TLS to the proxy) gets the same proxy request, the same line, as curl's.
        let scheme = proxy[..<schemeEnd.lowerBound].lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// Whether a `--noproxy` list (``LibcurlOptions/noProxy``) may send a request for `host`
    /// straight to the server, by libcurl's rules: `*` is every host; an entry (a leading dot
    /// dropped) is the host itself or a domain it ends in, without case. An entry with a `/`
    /// (a CIDR range, libcurl 7.86 on) is taken as a possible match: libcurl's line then stays.
    static func mayBypass(_ host: String, _ list: String) -> Bool {
        let host = host.lowercased()
        return list.split(separator: ",").contains { item in
            var entry = item.trimmingCharacters(in: .whitespaces).lowercased()
            if entry == "*" || entry.contains("/") { return true }
            if entry.hasPrefix(".") { entry.removeFirst() }
            guard !entry.isEmpty else { return false }
            return host == entry || host.hasSuffix("." + entry)
        }
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
