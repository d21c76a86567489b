/// A frame's opcode (RFC 6455 §5.2); the others (3–7, 11–15) are reserved and fail the connection.
enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 payload bytes, never fragmented (§5.5).
    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One frame as it is on the wire, the payload unmasked.
struct WebSocketFrame: Sendable, Equatable {
    var fin: Bool
    /// RSV1–3 as the three bits below the FIN bit (`0x40`, `0x20`, `0x10`).
    var reserved: UInt8
    var opcode: WebSocketOpcode
    var payload: [UInt8]

    init(fin: Bool = true, reserved: UInt8 = 0, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.reserved = reserved
        self.opcode = opcode
        self.payload = payload
    }

    /// The largest payload of a control frame.
    static let maximumControlPayload = 125
}
