import Foundation

/// The proxies a configuration's `connectionProxyDictionary` names, as the curl engine uses them.
///
/// The keys are Apple's CFNetwork ones, spelled out because those constants do not exist on
/// Linux: `HTTPEnable`, `HTTPProxy`, `HTTPPort` for `http` URLs; `HTTPSEnable`, `HTTPSProxy`,
/// `HTTPSPort` for `https` URLs (tunnelled through the proxy with `CONNECT`). A proxy is used
/// when its host is given, unless its `…Enable` key is `false` or `0`; without a port, libcurl's
/// default (1080) applies. An IPv6 address goes in brackets (`[::1]`). The host may also be
/// written as curl's `-x` takes it, a URL whose scheme names the kind of proxy and which carries
/// its port (`http://proxy:3128`, `socks5h://127.0.0.1:1080`).
///
/// A dictionary, even an empty one, replaces the environment's `http_proxy` and `https_proxy`
/// (as it replaces the system's proxies on Apple platforms); `no_proxy` still applies. Without
/// one (the default) libcurl reads `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`.
struct CurlProxies: Sendable {
    /// What `CURLOPT_PROXY` gets (a host name, an address, IPv6 in brackets, or a URL) and
    /// `CURLOPT_PROXYPORT`: the typed configuration's own value.
    typealias Proxy = CurlConfiguration.ProxyServer

    let http: Proxy?
    let https: Proxy?

    /// `nil` when there is no dictionary, so that the environment's proxies apply.
    init?(_ dictionary: [AnyHashable: Any]?) {
        guard let dictionary else { return nil }
        func proxy(_ prefix: String) -> Proxy? {
            guard Self.flag(dictionary[prefix + "Enable"]) ?? true,
                  let host = dictionary[prefix + "Proxy"] as? String, !host.isEmpty else { return nil }
            return Proxy(host: host, port: Self.number(dictionary[prefix + "Port"]))
        }
        http = proxy("HTTP")
        https = proxy("HTTPS")
    }

    /// The proxies of a typed configuration; `nil` for the environment's.
    init?(_ proxies: CurlConfiguration.Proxies) {
        guard case .servers(let http, let https) = proxies else { return nil }
        self.http = http
        self.https = https
    }

    /// The proxy for a request to `url`, or `nil` to connect directly.
    func proxy(for url: URL?) -> Proxy? {
        url?.scheme?.lowercased() == "https" ? https : http
    }

    private static func flag(_ value: Any?) -> Bool? {
        switch value {
        case let value as Bool: return value
        case let value as Int: return value != 0
        case let value as NSNumber: return value.boolValue
        case let value as String: return !["0", "false", "no"].contains(value.lowercased())
        default: return nil
        }
    }

    private static func number(_ value: Any?) -> Int? {
        switch value {
        case let value as Int: return value
        case let value as NSNumber: return value.intValue
        case let value as String: return Int(value)
        default: return nil
        }
    }
}
