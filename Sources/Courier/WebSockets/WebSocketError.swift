import Foundation

/// Why a WebSocket failed, or why an operation on one could not be done.
///
/// A failure ends the socket: its one end event is ``WebSocketEnd/failed(_:)`` with one of these.
/// ``timedOut(_:)`` from ``WebSocketTask/receive(timeout:)`` and ``invalidUse(_:)`` are the only
/// ones that leave the socket open.
public enum WebSocketError: Error, Sendable, CustomStringConvertible {
    /// The connection could not be made (resolving, connecting, TLS, a proxy): the
    /// ``NetworkError`` a request to the same URL would fail with.
    case connectionFailed(NetworkError)
    /// The server answered the opening handshake with another status than `101` (its status
    /// code and head), e.g. `200`, `401`, or a redirect, which a WebSocket does not follow.
    case handshakeRejected(status: Int, headers: HTTPHeaders)
    /// The server's `101` is not a valid WebSocket upgrade: the detail says what is wrong
    /// (no or a wrong `Sec-WebSocket-Accept`, a subprotocol or extension not offered, …).
    case invalidHandshake(String)
    /// The peer broke RFC 6455 (a masked frame, reserved bits, an unknown opcode, a fragmented
    /// or too long control frame, an invalid close code, …). Courier closed with 1002.
    case protocolViolation(String)
    /// A text message or close reason that is not valid UTF-8. Courier closed with 1007.
    case invalidUTF8
    /// A message over ``WebSocketOptions/maximumMessageSize`` bytes (the limit). Courier closed
    /// with 1009 as soon as the size was announced or reached.
    case messageTooLarge(limit: Int)
    /// No pong came within ``WebSocketOptions/pongTimeout`` of a keep-alive ping.
    case pongTimeout
    /// The peer stopped reading: nothing could be written for ``WebSocketOptions/sendTimeout``.
    case sendStalled
    /// More than ``WebSocketOptions/maximumQueuedBytes`` waiting to be sent: this message was
    /// not queued (the socket stays open).
    case sendBufferFull
    /// The connection ended without a closing handshake (read or write error, or the peer closed
    /// the TCP connection without a close frame; code 1006).
    case connectionLost(String)
    /// A wait ran out: the opening or closing handshake (the socket ends), or a
    /// ``WebSocketTask/receive(timeout:)`` (the socket stays open).
    case timedOut(String)
    /// The socket was cancelled (``WebSocketTask/cancel()``, or the `Task` iterating
    /// ``WebSocketTask/messages`` was cancelled).
    case cancelled
    /// The socket has ended: nothing more can be sent or received.
    case closed
    /// The call does not fit how the socket was made (e.g. ``WebSocketTask/receive(timeout:)`` on
    /// a socket whose messages go to an `onMessage` handler). The socket stays open.
    case invalidUse(String)
    /// This network cannot open WebSockets here; the detail says why.
    case unavailable(String)

    /// A sentence for people.
    public var description: String {
        switch self {
        case let .connectionFailed(error): return "The WebSocket connection failed: \(error)"
        case let .handshakeRejected(status, _): return "The server refused the WebSocket upgrade with status \(status)."
        case let .invalidHandshake(detail): return "The server's WebSocket upgrade is invalid: \(detail)"
        case let .protocolViolation(detail): return "The WebSocket peer broke the protocol: \(detail)"
        case .invalidUTF8: return "The WebSocket peer sent text that is not valid UTF-8."
        case let .messageTooLarge(limit): return "A WebSocket message was larger than the limit of \(limit) bytes."
        case .pongTimeout: return "The WebSocket peer did not answer a ping in time."
        case .sendStalled: return "The WebSocket peer stopped reading: nothing could be sent in time."
        case .sendBufferFull: return "Too many WebSocket bytes are waiting to be sent."
        case let .connectionLost(detail): return "The WebSocket connection was lost: \(detail)"
        case let .timedOut(detail): return "The WebSocket timed out: \(detail)"
        case .cancelled: return "The WebSocket was cancelled."
        case .closed: return "The WebSocket has ended."
        case let .invalidUse(detail): return "Invalid WebSocket call: \(detail)"
        case let .unavailable(detail): return "WebSockets are unavailable: \(detail)"
        }
    }

    /// The close code Courier sends when this error ends the socket, if it sends one.
    var closeCode: WebSocketCloseCode? {
        switch self {
        case .protocolViolation: return .protocolError
        case .invalidUTF8: return .invalidFramePayloadData
        case .messageTooLarge: return .messageTooBig
        case .pongTimeout, .sendStalled: return .goingAway
        case .cancelled: return .goingAway
        default: return nil
        }
    }
}

/// How a WebSocket ended: delivered exactly once, after every message, whatever raced.
public enum WebSocketEnd: Sendable {
    /// The closing handshake completed. `code` is the peer's (``WebSocketCloseCode/noStatusReceived``
    /// if its close frame had none); `byPeer` is whether the peer started it.
    case closed(code: WebSocketCloseCode, reason: String, byPeer: Bool)
    /// The socket failed or was cancelled.
    case failed(WebSocketError)
}
