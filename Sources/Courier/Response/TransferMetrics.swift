import Foundation

/// Where the time of one attempt went, and what it went over: the phases of the transfer as curl
/// times them, the connection's addresses, whether it was reused, and the bytes on the wire.
///
/// ```swift
/// let page = try await network.response(for: Request<Data>.get(url).withResponse())
/// if let metrics = page.metrics {   // page.response.metrics
///     print(metrics.httpVersion ?? .unknown, metrics.remoteAddress ?? "?", metrics.reusedConnection == true ? "reused" : "new")
///     print("first byte after", metrics.firstByte ?? .nan, "s, done after", metrics.total, "s")
/// }
/// ```
///
/// Times are seconds from the start of the attempt, as curl's `-w` reports them: each phase ends
/// at its time, and they never decrease in this order: ``nameLookup``, ``connect``,
/// ``tlsHandshake``, ``requestSent``, ``firstByte``, ``total``. A phase the transfer did not go
/// through (no TLS on plain http; no connect or handshake on a reused connection, as libcurl
/// 7.88 reports it) or did not reach (it failed before) is `nil`, never 0.
///
/// What each engine fills (see <doc:Engines>): the curl engine everything, read from libcurl
/// once the transfer is over; URLSession on Apple platforms everything it reports in
/// `URLSessionTaskMetrics`; URLSession on Linux, which delivers no metrics, only ``firstByte``
/// (when the head arrived) and ``total``, measured by Courier, the rest `nil`.
///
/// Where they are found: ``HTTPResponse/metrics`` of a complete response (an in-memory output
/// with ``NetworkRequest/withResponse()``, a stream's completion, a response an error carries),
/// ``NetworkError/metrics`` of a failed attempt, and ``NetworkObserver/didFinishCollecting(_:context:)``
/// for every attempt, downloads included.
public struct TransferMetrics: Sendable, Hashable {
    /// How far a transfer got: the phase it was in when it ended. A failed attempt's says where
    /// it failed (the host did not resolve, the connection or the TLS handshake failed, the
    /// server never answered, the body was cut short).
    ///
    /// ```swift
    /// if error.metrics?.phase == .connecting { print("nothing listens there") }
    /// ```
    public enum Phase: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Looking the host name up.
        case resolvingHost
        /// Opening the connection (to the server, or to the proxy and through its tunnel).
        case connecting
        /// The TLS handshake.
        case tlsHandshake
        /// Connected; the request not sent yet.
        case sendingRequest
        /// The request sent (or being sent, with its body), no response head yet.
        case waitingForHead
        /// The head arrived; the body was being received.
        case receivingBody
        /// The whole response arrived.
        case complete

        /// Phases in the order a transfer goes through them.
        ///
        /// ```swift
        /// TransferMetrics.Phase.connecting < .receivingBody   // true
        /// ```
        public static func < (lhs: Phase, rhs: Phase) -> Bool { lhs.rawValue < rhs.rawValue }

        /// In words: `resolving the host`, `waiting for the response head`, ...
        ///
        /// ```swift
        /// print(TransferMetrics.Phase.tlsHandshake)   // TLS handshake
        /// ```
        public var description: String {
            switch self {
            case .resolvingHost: return "resolving the host"
            case .connecting: return "connecting"
            case .tlsHandshake: return "TLS handshake"
            case .sendingRequest: return "sending the request"
            case .waitingForHead: return "waiting for the response head"
            case .receivingBody: return "receiving the body"
            case .complete: return "complete"
            }
        }
    }

    /// The values, behind one immutable reference: metrics travel with every response and
    /// every observer call, and a few hundred bytes copied at each step were a visible part of
    /// a small request's cost. A change (rare: the library sets them all at once) makes a new one.
    private var storage: Storage

    private struct Fields: Sendable, Hashable {
        var nameLookup: TimeInterval?
        var connect: TimeInterval?
        var tlsHandshake: TimeInterval?
        var requestSent: TimeInterval?
        var firstByte: TimeInterval?
        var total: TimeInterval
        var redirectTime: TimeInterval?
        var remoteAddress: String?
        var remotePort: Int?
        var localAddress: String?
        var localPort: Int?
        var reusedConnection: Bool?
        var connectionID: Int64?
        var httpVersion: HTTPVersion?
        var bytesSent: Int64?
        var bytesReceived: Int64?
        var headerBytes: Int64?
        var requestBytes: Int64?
        var phase: Phase?
    }

    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }

    /// Every value equal.
    public static func == (lhs: TransferMetrics, rhs: TransferMetrics) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes every value.
    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }

    /// When the host's address was known (curl's `time_namelookup`). Also set on a reused
    /// connection, where libcurl still looks its cache up.
    public var nameLookup: TimeInterval? {
        get { storage.fields.nameLookup }
        set { update { $0.nameLookup = newValue } }
    }
    /// When the TCP connection (or the Unix socket) was open (`time_connect`). On a reused
    /// connection libcurl 7.88 reports none (`nil`), 7.74 the moment it took the cached one.
    public var connect: TimeInterval? {
        get { storage.fields.connect }
        set { update { $0.connect = newValue } }
    }
    /// When the TLS handshake was done (`time_appconnect`); `nil` without TLS, and (libcurl
    /// 7.88) on a reused connection.
    public var tlsHandshake: TimeInterval? {
        get { storage.fields.tlsHandshake }
        set { update { $0.tlsHandshake = newValue } }
    }
    /// When the request was about to be sent, everything before it done (`time_pretransfer`).
    public var requestSent: TimeInterval? {
        get { storage.fields.requestSent }
        set { update { $0.requestSent = newValue } }
    }
    /// When the first byte of the response arrived (`time_starttransfer`).
    public var firstByte: TimeInterval? {
        get { storage.fields.firstByte }
        set { update { $0.firstByte = newValue } }
    }
    /// The whole attempt, redirects it followed included (`time_total`).
    public var total: TimeInterval {
        get { storage.fields.total }
        set { update { $0.total = newValue } }
    }
    /// The time spent on the redirects the attempt followed before its last request
    /// (`time_redirect`): 0 without any. With redirects, the phases above add up each request's,
    /// as curl's do.
    public var redirectTime: TimeInterval? {
        get { storage.fields.redirectTime }
        set { update { $0.redirectTime = newValue } }
    }
    /// The address connected to (`remote_ip`): an IP address, or the socket's path on a Unix
    /// domain socket, or the proxy's address through a proxy.
    public var remoteAddress: String? {
        get { storage.fields.remoteAddress }
        set { update { $0.remoteAddress = newValue } }
    }
    /// The port connected to (`remote_port`); `nil` on a Unix domain socket.
    public var remotePort: Int? {
        get { storage.fields.remotePort }
        set { update { $0.remotePort = newValue } }
    }
    /// The local end's address (`local_ip`); `nil` on a Unix domain socket.
    public var localAddress: String? {
        get { storage.fields.localAddress }
        set { update { $0.localAddress = newValue } }
    }
    /// The local end's port (`local_port`): with ``localAddress``, it names the TCP connection.
    public var localPort: Int? {
        get { storage.fields.localPort }
        set { update { $0.localPort = newValue } }
    }
    /// Whether the request went over a connection an earlier one had opened (curl's
    /// `num_connects` was 0).
    public var reusedConnection: Bool? {
        get { storage.fields.reusedConnection }
        set { update { $0.reusedConnection = newValue } }
    }
    /// libcurl's number for the connection (`conn_id`): the same number, the same connection.
    /// libcurl 8.2.0 and later only; `nil` before, where ``localPort`` tells connections apart.
    public var connectionID: Int64? {
        get { storage.fields.connectionID }
        set { update { $0.connectionID = newValue } }
    }
    /// The protocol the transfer used (`http_version`), known once a connection was chosen.
    public var httpVersion: HTTPVersion? {
        get { storage.fields.httpVersion }
        set { update { $0.httpVersion = newValue } }
    }
    /// Request body bytes sent (`size_upload`).
    public var bytesSent: Int64? {
        get { storage.fields.bytesSent }
        set { update { $0.bytesSent = newValue } }
    }
    /// Response body bytes received, as they came over the wire: before content decoding, so a
    /// gzip body counts its compressed size (`size_download`).
    public var bytesReceived: Int64? {
        get { storage.fields.bytesReceived }
        set { update { $0.bytesReceived = newValue } }
    }
    /// Bytes of response heads received, interim (`1xx`) heads included (`size_header`). Over
    /// HTTP/2 these are the heads as libcurl writes them out, not their compressed frames.
    public var headerBytes: Int64? {
        get { storage.fields.headerBytes }
        set { update { $0.headerBytes = newValue } }
    }
    /// Bytes of requests sent, heads and any body libcurl sent with them (`size_request`).
    public var requestBytes: Int64? {
        get { storage.fields.requestBytes }
        set { update { $0.requestBytes = newValue } }
    }
    /// The phase the transfer ended in: ``Phase/complete`` when the response arrived whole.
    public var phase: Phase? {
        get { storage.fields.phase }
        set { update { $0.phase = newValue } }
    }

    /// Creates a value (for tests and stub transports); everything but ``total`` is unknown
    /// unless given.
    ///
    /// ```swift
    /// let metrics = TransferMetrics(total: 0.12, firstByte: 0.08, phase: .complete)
    /// ```
    public init(total: TimeInterval, nameLookup: TimeInterval? = nil, connect: TimeInterval? = nil,
                tlsHandshake: TimeInterval? = nil, requestSent: TimeInterval? = nil, firstByte: TimeInterval? = nil,
                redirectTime: TimeInterval? = nil, remoteAddress: String? = nil, remotePort: Int? = nil,
                localAddress: String? = nil, localPort: Int? = nil, reusedConnection: Bool? = nil,
                connectionID: Int64? = nil, httpVersion: HTTPVersion? = nil, bytesSent: Int64? = nil,
                bytesReceived: Int64? = nil, headerBytes: Int64? = nil, requestBytes: Int64? = nil, phase: Phase? = nil) {
        storage = Storage(Fields(
            nameLookup: nameLookup,
            connect: connect,
            tlsHandshake: tlsHandshake,
            requestSent: requestSent,
            firstByte: firstByte,
            total: total,
            redirectTime: redirectTime,
            remoteAddress: remoteAddress,
            remotePort: remotePort,
            localAddress: localAddress,
            localPort: localPort,
            reusedConnection: reusedConnection,
            connectionID: connectionID,
            httpVersion: httpVersion,
            bytesSent: bytesSent,
            bytesReceived: bytesReceived,
            headerBytes: headerBytes,
            requestBytes: requestBytes,
            phase: phase))
    }

    /// The phase times that are known, in curl's order, named as curl's `-w` names them:
    /// `[("time_namelookup", 0.000031), ("time_connect", 0.000374), …, ("time_total", 0.0137)]`.
    ///
    /// ```swift
    /// for (name, seconds) in metrics.timeline { print(name, String(format: "%.6f", seconds)) }
    /// ```
    public var timeline: [(name: String, seconds: TimeInterval)] {
        let phases: [(String, TimeInterval?)] = [
            ("time_namelookup", nameLookup), ("time_connect", connect), ("time_appconnect", tlsHandshake),
            ("time_pretransfer", requestSent), ("time_starttransfer", firstByte), ("time_total", total),
        ]
        return phases.compactMap { name, seconds in seconds.map { (name, $0) } }
    }
}
