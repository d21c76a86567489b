/// Reads frames from the bytes a server sends, as they arrive, refusing at the header what
/// RFC 6455 forbids: a masked frame (§5.1), reserved bits no extension allows, reserved
/// opcodes, a fragmented or too long control frame (§5.5), a 64-bit length with its top bit set,
/// and a payload over the message size limit (announced: refused before a byte of it is kept).
struct WebSocketFrameDecoder: Sendable {
    /// The largest payload of one frame (the message limit: a frame cannot be larger).
    let maximumPayload: Int
    /// Reserved bits a negotiated extension gives meaning to (none without one).
    var allowedReservedBits: UInt8 = 0

    private var buffer: [UInt8] = []
    private var start = 0

    init(maximumPayload: Int) {
        self.maximumPayload = maximumPayload
    }

    /// Bytes waiting for a complete frame.
    var bufferedCount: Int { buffer.count - start }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        // Drops the consumed prefix only when it is most of the buffer: appending stays amortised.
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, or `nil` until more bytes arrive. Throws at the first byte that
    /// breaks the protocol (the header is checked before its payload arrives).
    mutating func next() throws(WebSocketError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start], second = buffer[start + 1]
        let reserved = first & 0x70
        guard reserved & ~allowedReservedBits == 0 else {
            throw .protocolViolation("reserved bits \(String(reserved >> 4, radix: 2)) set without an extension")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolViolation("reserved opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        if opcode.isControl {
            guard fin else { throw .protocolViolation("a fragmented control frame") }
            guard reserved == 0 else { throw .protocolViolation("reserved bits on a control frame") }
        }
        guard second & 0x80 == 0 else { throw .protocolViolation("a masked frame from the server") }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[start + index]) }
            guard length >> 63 == 0 else { throw .protocolViolation("a 64-bit frame length with its top bit set") }
            headerLength = 10
        }
        if opcode.isControl, length > UInt64(WebSocketFrame.maximumControlPayload) {
            throw .protocolViolation("a control frame of \(length) bytes (at most 125)")
        }
        guard length <= UInt64(maximumPayload) else { throw .messageTooLarge(limit: maximumPayload) }
        let payloadLength = Int(length)
        guard available >= headerLength + payloadLength else { return nil }
        let payloadStart = start + headerLength
        let payload = Array(buffer[payloadStart..<(payloadStart + payloadLength)])
        start = payloadStart + payloadLength
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        }
        return WebSocketFrame(fin: fin, reserved: reserved, opcode: opcode, payload: payload)
    }
}
