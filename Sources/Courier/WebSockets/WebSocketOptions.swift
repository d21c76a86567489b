import Foundation

/// How a WebSocket is opened and kept: subprotocols, extra headers, limits and timeouts.
public struct WebSocketOptions: Sendable {
    /// Subprotocols offered in `Sec-WebSocket-Protocol`, in order of preference; the server picks
    /// one (``WebSocketTask/subprotocol``) or none. A server that picks one not offered fails the
    /// handshake.
    public var subprotocols: [String]
    /// Extra header fields of the opening handshake (`Authorization`, `Origin`, …), after the
    /// network's defaults. The handshake's own fields (`Upgrade`, `Connection`, `Sec-WebSocket-*`,
    /// `Host`) cannot be replaced.
    public var headers: [(name: String, value: String)]
    /// The largest message accepted, in bytes; past it the socket fails with
    /// ``WebSocketError/messageTooLarge(limit:)`` (close code 1009). Default: 64 MiB.
    public var maximumMessageSize: Int
    /// How long the connection and opening handshake may take. Default: 30 s.
    public var handshakeTimeout: TimeInterval
    /// How long to wait for the peer's close frame after sending ours. Default: 5 s.
    public var closeTimeout: TimeInterval
    /// How long a send may make no progress (a peer that stopped reading) before the socket fails
    /// with ``WebSocketError/sendStalled``. Default: 30 s.
    public var sendTimeout: TimeInterval
    /// Sends a ping when nothing arrived for this long; `nil` (the default) sends none.
    public var pingInterval: TimeInterval?
    /// How long a keep-alive ping may wait for its pong before the socket fails with
    /// ``WebSocketError/pongTimeout``. Default: 10 s.
    public var pongTimeout: TimeInterval
    /// Received messages held for a consumer that has not taken them yet; when this many wait,
    /// Courier stops reading the socket (and TCP's flow control slows the peer). Default: 16.
    public var bufferedMessages: Int
    /// The most bytes waiting to be sent; a send past it fails with
    /// ``WebSocketError/sendBufferFull`` (one message of any size is always accepted when
    /// nothing waits). Default: 64 MiB.
    public var maximumQueuedBytes: Int
    /// Whether to offer permessage-deflate (RFC 7692): messages compressed both ways when the
    /// server accepts. Offered only where zlib loads (`libz.so.1`, as libcurl loads it);
    /// compressed messages are held to ``maximumMessageSize`` as they inflate. Default: `true`.
    public var compression: Bool
    /// How many redirects (`301`, `302`, `303`, `307`, `308` with a `Location`) the opening
    /// handshake follows, as RFC 6455 §4.1 allows: each to a new connection with a new key, within
    /// ``handshakeTimeout``. An `http`/`https` location is taken as `ws`/`wss`; one from `wss` to
    /// `ws` is refused (``WebSocketError/invalidHandshake(_:)``); to another origin, the
    /// `Authorization` and `Cookie` fields of ``headers`` are not sent (the network's cookies for
    /// the new URL are). Past the limit, the last answer fails the socket with
    /// ``WebSocketError/handshakeRejected(status:headers:)``. `0` follows none. Default: 10.
    public var maximumRedirects: Int = 10

    /// The defaults described on each property.
    public init(subprotocols: [String] = [], headers: [(name: String, value: String)] = [],
                maximumMessageSize: Int = 64 << 20, handshakeTimeout: TimeInterval = 30, closeTimeout: TimeInterval = 5,
                sendTimeout: TimeInterval = 30, pingInterval: TimeInterval? = nil, pongTimeout: TimeInterval = 10,
                bufferedMessages: Int = 16, maximumQueuedBytes: Int = 64 << 20, compression: Bool = true) {
        self.subprotocols = subprotocols
        self.headers = headers
        self.maximumMessageSize = maximumMessageSize
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
        self.sendTimeout = sendTimeout
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.bufferedMessages = bufferedMessages
        self.maximumQueuedBytes = maximumQueuedBytes
        self.compression = compression
    }
}
