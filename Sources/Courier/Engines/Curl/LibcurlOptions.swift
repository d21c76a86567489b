import Foundation

/// libcurl features the curl engine hands to libcurl as they are, named as curl's command line
/// names them: host overrides (`--resolve`, `--connect-to`), proxy details (`--noproxy`, `-p`,
/// `-U`), `--tr-encoding`, and `.netrc` credentials (``ConnectionOptions/libcurl``).
///
/// ```swift
/// var connection = ConnectionOptions()
/// // Reach the staging address under the production name, TLS name checks included:
/// connection.libcurl.resolve = ["api.example.com:443:10.0.0.7"]
/// connection.libcurl.netrc = .optional
/// let network = Network(engine: .curl, connection: connection)
/// ```
///
/// Only the curl engine has them: on URLSession, any value other than the default makes every
/// request fail with ``NetworkError/invalidRequest(_:)`` before anything is sent, as the rest of
/// ``ConnectionOptions`` does. libcurl reads each value itself, so its syntax is libcurl's; one
/// libcurl refuses ends the request with ``NetworkError/curlOptionRefused(option:libcurlVersion:_:)``.
public struct LibcurlOptions: Sendable, Hashable {
    /// `CURLOPT_RESOLVE` (curl's `--resolve`): `HOST:PORT:ADDRESS[,ADDRESS…]` entries that
    /// stand in for name resolution of that host and port. Default: none.
    public var resolve: [String]
    /// `CURLOPT_CONNECT_TO` (curl's `--connect-to`): `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`
    /// entries; a request for the first pair connects to the second (the URL, `Host` and TLS
    /// name stay the first). Default: none.
    public var connectTo: [String]
    /// `CURLOPT_NOPROXY` (curl's `--noproxy`): a comma-separated list of hosts, domains or
    /// addresses reached without the proxy; `*` for all. `nil` leaves the environment's
    /// `no_proxy` in charge. Default: `nil`.
    public var noProxy: String?
    /// `CURLOPT_HTTPPROXYTUNNEL` (curl's `-p`): plain-http requests go through the proxy in a
    /// `CONNECT` tunnel too, as https requests always do. Default: `false`.
    public var proxyTunnel: Bool
    /// `CURLOPT_PROXYUSERPWD` (curl's `-U`): `user:password` for the proxy, sent as Basic
    /// `Proxy-Authorization`. Default: `nil`.
    public var proxyCredentials: String?
    /// `CURLOPT_TRANSFER_ENCODING` (curl's `--tr-encoding`): ask for a compressed transfer
    /// encoding (`TE: gzip`) and undo it. Default: `false`.
    public var requestsTransferEncoding: Bool
    /// `CURLOPT_NETRC` (curl's `--netrc`, `--netrc-optional`): whether libcurl takes the login
    /// for a host from a `.netrc` file. Default: ``Netrc/ignored``.
    public var netrc: Netrc
    /// `CURLOPT_NETRC_FILE` (curl's `--netrc-file`): the `.netrc` file to read instead of
    /// `~/.netrc`. Default: `nil`.
    public var netrcFile: String?
    /// `CURLOPT_HTTPAUTH` (curl's `--digest`, `--ntlm`, `--negotiate`, `--anyauth`): the methods
    /// libcurl may use to log in to the server with ``credentials``. libcurl answers the server's
    /// `401` challenge itself, within the same request: the response is the one after it. `nil`
    /// leaves libcurl's default (Basic). Default: `nil`.
    ///
    /// ```swift
    /// var connection = ConnectionOptions()
    /// connection.libcurl.authMethods = .digest
    /// connection.libcurl.credentials = "user:secret"
    /// ```
    public var authMethods: AuthMethods? = nil
    /// `CURLOPT_USERPWD` (curl's `-u` given with one of the ``authMethods``): `user:password`
    /// for the server, sent as the method libcurl picks. Default: `nil`.
    public var credentials: String? = nil

    /// `CURLOPT_PROXYAUTH` (curl's `--proxy-digest`, `--proxy-ntlm`, `--proxy-negotiate`,
    /// `--proxy-anyauth`): the methods libcurl may use to log in to the proxy with
    /// ``proxyCredentials``, answering its `407` challenge itself. `nil` leaves libcurl's default
    /// (Basic). Default: `nil`.
    ///
    /// ```swift
    /// var connection = ConnectionOptions()
    /// connection.libcurl.proxyAuthMethods = .digest
    /// connection.libcurl.proxyCredentials = "agent:secret"
    /// ```
    public var proxyAuthMethods: AuthMethods? = nil

    /// `CURLOPT_LOW_SPEED_LIMIT` and `CURLOPT_LOW_SPEED_TIME` (curl's `-Y`/`--speed-limit` and
    /// `-y`/`--speed-time`): a transfer slower than ``LowSpeedLimit/bytesPerSecond`` for
    /// ``LowSpeedLimit/seconds`` on end is ended by libcurl, with ``NetworkError/transport(_:)``
    /// carrying `URLError.timedOut` and libcurl's sentence (`Operation too slow. Less than 1000
    /// bytes/sec transferred the last 3 seconds`). Default: `nil`, libcurl's backstop behind the
    /// idle timeout (see ``ConnectionOptions/idleTimeout``), which a request without a byte for
    /// that long meets first.
    ///
    /// ```swift
    /// var connection = ConnectionOptions()
    /// connection.libcurl.lowSpeedLimit = LibcurlOptions.LowSpeedLimit(bytesPerSecond: 10_000, seconds: 20)
    /// ```
    public var lowSpeedLimit: LowSpeedLimit? = nil

    /// A speed a transfer must keep (``LibcurlOptions/lowSpeedLimit``), averaged over a time.
    public struct LowSpeedLimit: Sendable, Hashable {
        /// The speed, in bytes per second, below which the time counts. curl's default: 1.
        public var bytesPerSecond: Int
        /// How many whole seconds below it end the transfer. curl's default: 30.
        public var seconds: Int

        /// Slower than `bytesPerSecond` for `seconds` on end; curl's defaults for what is not given.
        public init(bytesPerSecond: Int = 1, seconds: Int = 30) {
            self.bytesPerSecond = bytesPerSecond
            self.seconds = seconds
        }
    }

    /// `CURLOPT_REQUEST_TARGET` (curl's `--request-target`): the request line's target instead
    /// of the URL's path and query, as given (`*` for `OPTIONS *`). Default: `nil`.
    public var requestTarget: String? = nil
    /// `CURLOPT_PATH_AS_IS` (curl's `--path-as-is`): the URL's path is sent with its `/../` and
    /// `/./` segments as typed rather than resolved first. Default: `false`.
    public var keepsPathAsIs: Bool = false
    /// `CURLOPT_INTERFACE` (curl's `--interface`): the interface name, local address or host name
    /// connections go out from. Default: `nil`.
    public var interface: String? = nil
    /// `CURLOPT_IPRESOLVE` (curl's `-4`, `-6`): which address family a host name may resolve to.
    /// Default: ``IPResolve/any``.
    public var ipResolve: IPResolve = .any
    /// `CURLOPT_HAPROXYPROTOCOL` (curl's `--haproxy-protocol`): each connection starts with a
    /// PROXY protocol v1 line naming the client's address. Default: `false`.
    public var sendsHAProxyHeader: Bool = false
    /// `CURLOPT_HTTP_TRANSFER_DECODING` and `CURLOPT_HTTP_CONTENT_DECODING` off (curl's
    /// `--raw`): the body is delivered as it came, a chunked one with its chunk framing, a coded
    /// one (`Transfer-Encoding: gzip`, `Content-Encoding`) not decoded. Default: `false`.
    public var keepsEncodings: Bool = false
    /// `CURLOPT_HTTP09_ALLOWED` (curl's `--http0.9`): an answer without a status line is taken
    /// as an HTTP/0.9 body rather than refused. Default: `false`.
    public var allowsHTTP09: Bool = false
    /// `CURLOPT_PROXYTYPE` `CURLPROXY_HTTP_1_0` (curl's `--proxy1.0`): the HTTP proxy is spoken
    /// to in HTTP/1.0, its `CONNECT` included. Default: `false`.
    public var proxyUsesHTTP1_0: Bool = false
    /// `CURLOPT_HTTP_VERSION` `CURL_HTTP_VERSION_1_0` (curl's `-0`, `--http1.0`): requests are
    /// sent as HTTP/1.0, over ``ConnectionOptions/httpVersion``. Default: `false`.
    public var usesHTTP1_0: Bool = false

    /// `CURLOPT_POSTREDIR` (curl's `--post301`, `--post302`, `--post303`): the redirect statuses
    /// after which a `POST` stays a `POST`, its body sent again, where it would otherwise become
    /// a `GET` without one. The curl engine follows redirects itself and applies it as libcurl
    /// would. Default: none.
    public var postRedirects: PostRedirects = []

    /// `CURLOPT_UNRESTRICTED_AUTH`'s meaning (curl's `--location-trusted`): a redirect to
    /// another host keeps the request's `Authorization` and `Cookie` headers, which are otherwise
    /// left out there. The curl engine follows redirects itself and applies it. Only for hosts
    /// trusted with the credentials. Default: `false`.
    public var sendsCredentialsToOtherHosts: Bool = false

    /// `CURLOPT_PROXYHEADER` (curl's `--proxy-header`): header lines for the proxy only, as
    /// libcurl takes them (`Name: value`, `Name:` to remove one of libcurl's, `Name;` for an
    /// empty one): after the request's fields in a request through an HTTP proxy, and the only
    /// custom lines of a tunnel's `CONNECT`. Only where the network has its own proxy (its
    /// configuration's `connectionProxyDictionary`); a `Proxy-Connection` among them replaces libcurl's.
    /// Default: none.
    public var proxyHeaders: [String] = []
    /// `CURLOPT_IGNORE_CONTENT_LENGTH` (curl's `--ignore-content-length`): the response's
    /// `Content-Length` is not believed, and the body is read until the connection closes.
    /// Default: `false`.
    public var ignoresContentLength: Bool = false
    /// `CURLOPT_CRLFILE` (curl's `--crlfile`): a PEM file of certificate revocation lists the
    /// server's certificate is checked against; a revoked one fails the TLS handshake. Default: `nil`.
    public var crlFile: String? = nil
    /// `CURLOPT_PROXY_SSL_VERIFYPEER` and `CURLOPT_PROXY_SSL_VERIFYHOST` off (curl's
    /// `--proxy-insecure`): an https proxy's certificate is not verified. Test proxies only.
    /// Default: `false`.
    public var trustsProxyBlindly: Bool = false

    /// Redirect statuses for ``LibcurlOptions/postRedirects``: libcurl's `CURL_REDIR_POST_…` bits.
    public struct PostRedirects: OptionSet, Sendable, Hashable {
        /// The `CURL_REDIR_POST_…` bits.
        public let rawValue: Int

        /// Statuses from `CURL_REDIR_POST_…` bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// `301 Moved Permanently` (`CURL_REDIR_POST_301`, curl's `--post301`).
        public static let status301 = PostRedirects(rawValue: 1)
        /// `302 Found` (`CURL_REDIR_POST_302`, curl's `--post302`).
        public static let status302 = PostRedirects(rawValue: 2)
        /// `303 See Other` (`CURL_REDIR_POST_303`, curl's `--post303`).
        public static let status303 = PostRedirects(rawValue: 4)
    }

    /// Address families for ``LibcurlOptions/ipResolve``: libcurl's `CURL_IPRESOLVE_…` values.
    public enum IPResolve: Int, Sendable, Hashable, CaseIterable {
        /// Whatever the name resolves to (`CURL_IPRESOLVE_WHATEVER`).
        case any = 0
        /// IPv4 addresses only (`CURL_IPRESOLVE_V4`, curl's `-4`).
        case v4 = 1
        /// IPv6 addresses only (`CURL_IPRESOLVE_V6`, curl's `-6`).
        case v6 = 2
    }

    /// Whether libcurl may answer a `401` itself: an ``authMethods`` beyond Basic (which sends
    /// its credentials at once), so that a transfer can make more than one request.
    var negotiatesAuthentication: Bool {
        authMethods.map { !$0.subtracting(.basic).isEmpty } ?? false
    }

    /// The same for the proxy's `407` (``proxyAuthMethods``).
    var negotiatesProxyAuthentication: Bool {
        proxyAuthMethods.map { !$0.subtracting(.basic).isEmpty } ?? false
    }

    /// Authentication methods for ``LibcurlOptions/authMethods``: libcurl's `CURLAUTH_…` bits.
    public struct AuthMethods: OptionSet, Sendable, Hashable {
        /// The `CURLAUTH_…` bits.
        public let rawValue: Int

        /// Methods from `CURLAUTH_…` bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Basic (`CURLAUTH_BASIC`).
        public static let basic = AuthMethods(rawValue: 1 << 0)
        /// Digest (`CURLAUTH_DIGEST`, curl's `--digest`).
        public static let digest = AuthMethods(rawValue: 1 << 1)
        /// SPNEGO (`CURLAUTH_NEGOTIATE`, curl's `--negotiate`), where libcurl is built with it.
        public static let negotiate = AuthMethods(rawValue: 1 << 2)
        /// NTLM (`CURLAUTH_NTLM`, curl's `--ntlm`), where libcurl is built with it.
        public static let ntlm = AuthMethods(rawValue: 1 << 3)
        /// Whichever the server offers that libcurl has, the safest first (`CURLAUTH_ANY`,
        /// curl's `--anyauth`): libcurl first asks without credentials to learn them.
        public static let any = AuthMethods(rawValue: ~(1 << 4))
    }

    /// How a `.netrc` file is used (libcurl's `CURL_NETRC_…` values).
    public enum Netrc: Int, Sendable, Hashable, CaseIterable {
        /// Not read (`CURL_NETRC_IGNORED`).
        case ignored = 0
        /// Read; credentials in the URL win (`CURL_NETRC_OPTIONAL`, curl's `--netrc-optional`).
        case optional = 1
        /// Read; credentials in the URL are ignored (`CURL_NETRC_REQUIRED`, curl's `--netrc`).
        case required = 2
    }

    /// Nothing passed through: libcurl's defaults.
    ///
    /// ```swift
    /// let options = LibcurlOptions(resolve: ["example.com:80:127.0.0.1"])
    /// ```
    public init(resolve: [String] = [], connectTo: [String] = [], noProxy: String? = nil, proxyTunnel: Bool = false,
                proxyCredentials: String? = nil, requestsTransferEncoding: Bool = false, netrc: Netrc = .ignored,
                netrcFile: String? = nil) {
        self.resolve = resolve
        self.connectTo = connectTo
        self.noProxy = noProxy
        self.proxyTunnel = proxyTunnel
        self.proxyCredentials = proxyCredentials
        self.requestsTransferEncoding = requestsTransferEncoding
        self.netrc = netrc
        self.netrcFile = netrcFile
    }
}
