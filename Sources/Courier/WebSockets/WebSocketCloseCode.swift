/// A close frame's status code (RFC 6455 §7.4). Any `UInt16` can be held; ``isValidOnWire``
/// says whether a peer may send it.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code's number.
    public var rawValue: UInt16

    /// Wraps a code number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection has been fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a page left).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot accept (binary to a text-only endpoint).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: reported (never sent) when a close frame carried no code.
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: reported (never sent) when the connection ended without a close frame.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message that is not valid UTF-8.
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message that violates the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process (``WebSocketOptions/maximumMessageSize``).
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client needed an extension the server did not agree to.
    public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a close frame may carry this code: 1000–1003, 1007–1014 (the IANA-registered
    /// ones) and 3000–4999. 1005, 1006 and 1015 are only ever reported, never sent.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The number, e.g. `1000`.
    public var description: String { String(rawValue) }
}
