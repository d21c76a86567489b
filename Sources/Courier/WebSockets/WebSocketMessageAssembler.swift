import Foundation

/// What one frame means to the socket, once fragments are put together.
enum WebSocketEvent: Sendable, Equatable {
    case message(WebSocketMessage)
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame: its code (``WebSocketCloseCode/noStatusReceived`` without one)
    /// and reason.
    case close(WebSocketCloseCode, String)
}

/// Puts fragmented messages together (RFC 6455 §5.4), with control frames allowed between
/// fragments, and checks what frames alone cannot: continuation without a start, a new message
/// inside another, text that is not UTF-8 (checked frame by frame, so an invalid sequence fails
/// in the fragment it is in), the message size limit across fragments, and close payloads.
struct WebSocketMessageAssembler: Sendable {
    let maximumMessageSize: Int
    private var kind: WebSocketOpcode?
    private var parts: [UInt8] = []
    private var validator = UTF8Validator()
    /// The negotiated permessage-deflate's decompressor (`nil`: none negotiated).
    var inflater: WebSocketInflater?
    /// The message being put together came compressed (RSV1 on its first frame).
    private var compressed = false

    init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// The event `frame` completes, if any.
    mutating func take(_ frame: WebSocketFrame) throws(WebSocketError) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard kind == nil else { throw .protocolViolation("a new message before the previous one's last fragment") }
            kind = frame.opcode
            validator = UTF8Validator()
            // RFC 7692 §6.1: RSV1 on a message's first frame says it is compressed (the frame
            // decoder lets RSV1 through only once permessage-deflate was negotiated).
            compressed = frame.reserved & 0x40 != 0
            if compressed, inflater == nil { throw .protocolViolation("RSV1 set without permessage-deflate") }
        case .continuation:
            guard kind != nil else { throw .protocolViolation("a continuation frame with no message to continue") }
            guard frame.reserved & 0x40 == 0 else { throw .protocolViolation("RSV1 on a continuation frame") }
        }
        var payload = frame.payload
        if compressed, let inflater {
            payload = try inflater.inflate(payload, final: frame.fin, limit: maximumMessageSize - parts.count, messageLimit: maximumMessageSize)
        }
        guard parts.count + payload.count <= maximumMessageSize else { throw .messageTooLarge(limit: maximumMessageSize) }
        if kind == .text, !validator.feed(payload) { throw .invalidUTF8 }
        if frame.opcode != .continuation, frame.fin {
            // A message in one frame: its payload is the message, no copy into `parts`. (Not
            // `parts.isEmpty`: a message whose earlier fragments were all empty is not one frame.)
            kind = nil
            return .message(try Self.message(frame.opcode, payload, validator))
        }
        parts.append(contentsOf: payload)
        guard frame.fin, let opcode = kind else { return nil }
        kind = nil
        let message = parts
        parts = []
        return .message(try Self.message(opcode, message, validator))
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8], _ validator: UTF8Validator) throws(WebSocketError) -> WebSocketMessage {
        guard opcode == .text else { return .binary(Data(payload)) }
        guard validator.isComplete else { throw .invalidUTF8 }
        return .text(String(decoding: payload, as: UTF8.self))
    }

    /// A close payload: empty, or a valid code and a UTF-8 reason (§5.5.1, §7.4).
    static func close(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketEvent {
        if payload.isEmpty { return .close(.noStatusReceived, "") }
        guard payload.count >= 2 else { throw .protocolViolation("a close frame of 1 byte") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { throw .protocolViolation("close code \(code.rawValue)") }
        let reason = Array(payload[2...])
        guard UTF8Validator.isValid(reason) else { throw .invalidUTF8 }
        return .close(code, String(decoding: reason, as: UTF8.self))
    }

    /// A close frame's payload: the code and the reason, cut to fit 125 bytes at a character boundary.
    static func closePayload(_ code: WebSocketCloseCode, _ reason: String) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = 0
        for character in reason {
            let bytes = Array(String(character).utf8)
            guard reasonBytes + bytes.count <= WebSocketFrame.maximumControlPayload - 2 else { break }
            payload.append(contentsOf: bytes)
            reasonBytes += bytes.count
        }
        return payload
    }
}
