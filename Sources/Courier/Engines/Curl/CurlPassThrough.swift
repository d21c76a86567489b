import CCurl
import Foundation

/// Sets an easy handle up for ``LibcurlOptions``: each value goes to its `CURLOPT_…` as it is.
enum CurlPassThrough {
    /// Called only where the options set something (``CurlSettings/passesLibcurlOptions``).
    static func apply(_ libcurl: LibcurlOptions, lists: CurlHostLists, to options: inout CurlOptionSetter) {
        if let list = lists.resolve { options.set(Int32(CCURLOPT_RESOLVE), pointer: UnsafeRawPointer(list)) }
        if let list = lists.connectTo { options.set(Int32(CCURLOPT_CONNECT_TO), pointer: UnsafeRawPointer(list)) }
        if let noProxy = libcurl.noProxy { options.set(Int32(CCURLOPT_NOPROXY), noProxy) }
        if libcurl.proxyTunnel { options.set(Int32(CCURLOPT_HTTPPROXYTUNNEL), 1) }
        if let credentials = libcurl.proxyCredentials { options.set(Int32(CCURLOPT_PROXYUSERPWD), credentials) }
        if libcurl.requestsTransferEncoding { options.set(Int32(CCURLOPT_TRANSFER_ENCODING), 1) }
        if libcurl.netrc != .ignored { options.set(Int32(CCURLOPT_NETRC), libcurl.netrc.rawValue) }
        if let file = libcurl.netrcFile { options.set(Int32(CCURLOPT_NETRC_FILE), file) }
        if let methods = libcurl.authMethods { options.set(Int32(CCURLOPT_HTTPAUTH), methods.rawValue) }
        if let methods = libcurl.proxyAuthMethods { options.set(Int32(CCURLOPT_PROXYAUTH), methods.rawValue) }
        if let credentials = libcurl.credentials { options.set(Int32(CCURLOPT_USERPWD), credentials) }
        if let lowSpeed = libcurl.lowSpeedLimit {
            // Over the idle timeout's backstop (CurlRequestOptions), which set the same two.
            options.set(Int32(CCURLOPT_LOW_SPEED_LIMIT), lowSpeed.bytesPerSecond)
            options.set(Int32(CCURLOPT_LOW_SPEED_TIME), lowSpeed.seconds)
        }
        if let target = libcurl.requestTarget { options.set(Int32(CCURLOPT_REQUEST_TARGET), target) }
        if libcurl.keepsPathAsIs { options.set(Int32(CCURLOPT_PATH_AS_IS), 1) }
        if let interface = libcurl.interface { options.set(Int32(CCURLOPT_INTERFACE), interface) }
        if libcurl.ipResolve != .any { options.set(Int32(CCURLOPT_IPRESOLVE), libcurl.ipResolve.rawValue) }
        if libcurl.sendsHAProxyHeader { options.set(Int32(CCURLOPT_HAPROXYPROTOCOL), 1) }
        if libcurl.keepsEncodings {
            options.set(Int32(CCURLOPT_HTTP_TRANSFER_DECODING), 0)
            options.set(Int32(CCURLOPT_HTTP_CONTENT_DECODING), 0)
        }
        if libcurl.allowsHTTP09 { options.set(Int32(CCURLOPT_HTTP09_ALLOWED), 1) }
        // CURLPROXY_HTTP_1_0; a proxy URL with a scheme (socks5://) still says its own type.
        if libcurl.proxyUsesHTTP1_0 { options.set(Int32(CCURLOPT_PROXYTYPE), 1) }
        if libcurl.ignoresContentLength { options.set(Int32(CCURLOPT_IGNORE_CONTENT_LENGTH), 1) }
        if let file = libcurl.crlFile { options.set(Int32(CCURLOPT_CRLFILE), file) }
        if libcurl.trustsProxyBlindly {
            options.set(Int32(CCURLOPT_PROXY_SSL_VERIFYPEER), 0)
            options.set(Int32(CCURLOPT_PROXY_SSL_VERIFYHOST), 0)
        }
        // Set after the network's HTTP version (CurlConnectionOptions), which it overrides.
        if libcurl.usesHTTP1_0 { options.set(Int32(CCURLOPT_HTTP_VERSION), Int(CCURL_HTTP_VERSION_1_0)) }
    }
}

/// The libcurl lists `CURLOPT_RESOLVE`, `CURLOPT_CONNECT_TO` and `CURLOPT_PROXYHEADER` take, made once per network.
/// libcurl keeps the pointer (it does not copy these lists) and reads them when a transfer
/// starts, so they live as long as the transport's settings, which outlive its handles.
final class CurlHostLists: @unchecked Sendable {   // immutable after init; freed only in deinit
    let resolve: OpaquePointer?
    let connectTo: OpaquePointer?
    /// ``LibcurlOptions/proxyHeaders`` as they are, and the same after the empty
    /// `Proxy-Connection:` that leaves libcurl's own line out (``CurlProxyConnection``).
    let proxyHeaders: OpaquePointer?
    let proxyHeadersWithoutOwnLine: OpaquePointer?

    init(_ libcurl: LibcurlOptions) {
        resolve = Self.list(libcurl.resolve)
        connectTo = Self.list(libcurl.connectTo)
        proxyHeaders = Self.list(libcurl.proxyHeaders)
        proxyHeadersWithoutOwnLine = libcurl.proxyHeaders.isEmpty ? nil : Self.list(["Proxy-Connection:"] + libcurl.proxyHeaders)
    }

    deinit {
        if let resolve { ccurl_slist_free_all(resolve) }
        if let connectTo { ccurl_slist_free_all(connectTo) }
        if let proxyHeaders { ccurl_slist_free_all(proxyHeaders) }
        if let proxyHeadersWithoutOwnLine { ccurl_slist_free_all(proxyHeadersWithoutOwnLine) }
    }

    /// Whether the user's proxy lines name a `Proxy-Connection` of their own, which libcurl then
    /// sends instead of its line (and Courier instead of the line it writes in curl's place).
    static func namesProxyConnection(_ lines: [String]) -> Bool {
        lines.contains { line in
            guard let colon = line.firstIndex(of: ":") else { return false }
            return line[..<colon].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare("Proxy-Connection") == .orderedSame
        }
    }

    private static func list(_ entries: [String]) -> OpaquePointer? {
        entries.reduce(nil) { list, entry in ccurl_slist_append(list, entry) }
    }
}
