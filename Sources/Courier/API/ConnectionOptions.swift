import Foundation

/// How a ``Network``'s requests reach their servers, on the wire: which HTTP version is used, a
/// Unix domain socket to connect to instead of TCP, and how fast bytes may go.
///
/// ```swift
/// // Docker's API on its socket, HTTP/1.1 as Docker speaks it:
/// let docker = Network(connection: ConnectionOptions(unixSocketPath: "/var/run/docker.sock", httpVersion: .http1_1))
/// let containers = try docker.scheduleSynchronously(Request<Data>.get("http://localhost/containers/json")).get()
///
/// // An h2c service (HTTP/2 over cleartext, no upgrade), and no more than 1 MiB/s either way:
/// let grpc = Network(connection: ConnectionOptions(httpVersion: .http2PriorKnowledge,
///                                                  rateLimit: RateLimit(bytesPerSecond: 1 << 20)))
/// ```
///
/// The curl engine honours all of it. URLSession honours only the defaults: on that engine, any
/// other value makes every request fail with ``NetworkError/invalidRequest(_:)`` before anything
/// is sent, rather than be silently ignored. See <doc:Wire>.
public struct ConnectionOptions: Sendable, Hashable {
    /// Which HTTP version requests use. Default: ``HTTPVersionPreference/http2``.
    public var httpVersion: HTTPVersionPreference
    /// A Unix domain socket every request connects to instead of the URL's host and port (curl's
    /// `--unix-socket`): the URL still gives the path, the `Host` header and the scheme. Docker
    /// (`/var/run/docker.sock`) and systemd's services listen on such sockets. Default: `nil`.
    public var unixSocketPath: String?
    /// The most bytes per second every request of the network receives and sends, unless a
    /// request sets its own (``NetworkRequest/rateLimit``). Default: no limit.
    public var rateLimit: RateLimit
    /// No byte received or sent for this many seconds ends an attempt with
    /// ``NetworkError/timedOut(_:)`` of kind ``TimeoutExceeded/Kind/idle``, unless the request
    /// sets its own (``TransferOptions/idleTimeout``). `nil` (the default): the configuration's
    /// `timeoutIntervalForRequest` (60 s unless set), which is what that property means to
    /// URLSession; `.infinity` for none. Both engines, fractional seconds.
    public var idleTimeout: TimeInterval?
    /// No connection within this many seconds ends an attempt with ``NetworkError/timedOut(_:)``
    /// of kind ``TimeoutExceeded/Kind/connect``, unless the request sets its own
    /// (``TransferOptions/connectTimeout``). `nil` (the default): none of its own, the idle
    /// timeout covers connecting. Both engines; see ``TransferOptions/connectTimeout`` for what
    /// each can see of a connection.
    public var connectTimeout: TimeInterval?
    /// libcurl features passed through as they are (`--resolve`, `--connect-to`, `--noproxy`,
    /// `-p`, `-U`, `--tr-encoding`, `.netrc`): see ``LibcurlOptions``. Default: none of them.
    public var libcurl = LibcurlOptions()
    /// Whether the curl engine keeps each response head's bytes as they arrived
    /// (``HTTPResponse/headBytes``), for the CLI, which writes them as curl does. Default: `false`
    /// (no response pays for the copy); URLSession never has them.
    package var keepsHeadBytes = false

    /// HTTP/2 where the server offers it, TCP, no limits: unless given otherwise.
    ///
    /// ```swift
    /// let options = ConnectionOptions(httpVersion: .http1_1)
    /// ```
    public init(unixSocketPath: String? = nil, httpVersion: HTTPVersionPreference = .http2, rateLimit: RateLimit = RateLimit()) {
        self.httpVersion = httpVersion
        self.unixSocketPath = unixSocketPath
        self.rateLimit = rateLimit
    }

    /// The same, with the network's idle and connect timeouts.
    ///
    /// ```swift
    /// // A stall is 10 s, a connection must open within 3 s; HTTP/2 as by default:
    /// let options = ConnectionOptions(idleTimeout: 10, connectTimeout: 3)
    /// ```
    public init(unixSocketPath: String? = nil, httpVersion: HTTPVersionPreference = .http2, rateLimit: RateLimit = RateLimit(),
                idleTimeout: TimeInterval?, connectTimeout: TimeInterval? = nil) {
        self.init(unixSocketPath: unixSocketPath, httpVersion: httpVersion, rateLimit: rateLimit)
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
    }

    /// Whether anything URLSession cannot honour differs from the defaults (it honours the
    /// timeouts: the transfer watches them on every engine).
    var isCustomized: Bool {
        var wire = self
        wire.idleTimeout = nil
        wire.connectTimeout = nil
        wire.keepsHeadBytes = false
        return wire != ConnectionOptions()
    }

    /// The longest socket path the system takes (`sun_path` holds 108 bytes with its NUL).
    static let maximumSocketPathLength = 107

    /// Why these options cannot work on any engine, or `nil`.
    var problem: String? {
        if let path = unixSocketPath {
            if path.isEmpty { return "the Unix socket path is empty" }
            if path.utf8.count > Self.maximumSocketPathLength {
                return "the Unix socket path is \(path.utf8.count) bytes long; at most \(Self.maximumSocketPathLength) fit in a socket address"
            }
            if path.utf8.contains(0) { return "the Unix socket path contains a NUL byte" }
        }
        return rateLimit.problem ?? TransferOptions.problem(idleTimeout, "idleTimeout")
            ?? TransferOptions.problem(connectTimeout, "connectTimeout")
    }

    /// What every request of a URLSession network given non-default options fails with.
    static let unsupportedByURLSession = NetworkError.invalidRequest(
        "ConnectionOptions (an HTTP version other than .http2, a Unix socket, a rate limit, LibcurlOptions) need the curl engine: "
            + "the URLSession engine cannot apply them")
}

/// Which HTTP version a ``Network`` speaks (``ConnectionOptions/httpVersion``; curl's `--http1.1`,
/// `--http2`, `--http2-prior-knowledge`).
///
/// ```swift
/// let network = Network(connection: ConnectionOptions(httpVersion: .http1_1))
/// ```
///
/// Whatever the preference, a libcurl built without HTTP/2
/// (``CurlFeatures/supportsHTTP2`` is `false`) speaks HTTP/1.1.
public enum HTTPVersionPreference: String, Sendable, Hashable, CaseIterable {
    /// HTTP/1.1 only: one request at a time per connection.
    case http1_1
    /// HTTP/2 over https where the server offers it (ALPN), HTTP/1.1 otherwise and over plain
    /// http. Requests to one origin share one connection, as many at once as
    /// ``Network/maximumConcurrentRequests`` lets run. The default, as in curl.
    case http2
    /// HTTP/2 from the first byte, without asking (curl's `--http2-prior-knowledge`): over plain
    /// http too (h2c), for servers known to speak it. A server that does not fails the request.
    case http2PriorKnowledge
}

/// A ceiling on how fast a transfer moves its bytes, each direction on its own (curl's
/// `--limit-rate`, which sets both). libcurl keeps the average rate at or under it, pausing the
/// transfer as needed; streams, downloads and uploads all honour it. The curl engine only.
///
/// ```swift
/// var request = Request<Data>.get(isoURL)
/// request.rateLimit = RateLimit(receiveBytesPerSecond: 500 << 10)   // at most 500 KiB/s down
/// ```
public struct RateLimit: Sendable, Hashable {
    /// The most response bytes received per second, or `nil` for no limit.
    public var receiveBytesPerSecond: Int64?
    /// The most request bytes sent per second, or `nil` for no limit.
    public var sendBytesPerSecond: Int64?

    /// Limits each direction as given; `nil` is no limit.
    ///
    /// ```swift
    /// let limit = RateLimit(receiveBytesPerSecond: 1 << 20, sendBytesPerSecond: 256 << 10)
    /// ```
    public init(receiveBytesPerSecond: Int64? = nil, sendBytesPerSecond: Int64? = nil) {
        self.receiveBytesPerSecond = receiveBytesPerSecond
        self.sendBytesPerSecond = sendBytesPerSecond
    }

    /// The same limit both ways, as curl's `--limit-rate`.
    ///
    /// ```swift
    /// let limit = RateLimit(bytesPerSecond: 100 << 10)   // --limit-rate 100K
    /// ```
    public init(bytesPerSecond: Int64) {
        self.init(receiveBytesPerSecond: bytesPerSecond, sendBytesPerSecond: bytesPerSecond)
    }

    /// Whether either direction is limited.
    var isLimited: Bool { receiveBytesPerSecond != nil || sendBytesPerSecond != nil }

    /// Each direction this limit leaves open taken from `fallback` (a request's limit over its
    /// network's).
    func over(_ fallback: RateLimit) -> RateLimit {
        RateLimit(receiveBytesPerSecond: receiveBytesPerSecond ?? fallback.receiveBytesPerSecond,
                  sendBytesPerSecond: sendBytesPerSecond ?? fallback.sendBytesPerSecond)
    }

    /// Why this limit cannot be used, or `nil`: a rate must be a positive number of bytes.
    var problem: String? {
        for (name, value) in [("receive", receiveBytesPerSecond), ("send", sendBytesPerSecond)] {
            if let value, value <= 0 { return "the \(name) rate limit must be at least 1 byte per second, not \(value)" }
        }
        return nil
    }
}
