/// Writes frames as a client must (RFC 6455 §5.1–5.3): every frame masked, with a new key from
/// the system's random source each time, and the shortest length form (7, 16 or 64 bits).
enum WebSocketFrameEncoder {
    /// The bytes of `frame`, masked with `maskKey` (a fresh random key unless a test gives one;
    /// `nil` writes an unmasked frame, as only a server may).
    static func encode(_ frame: WebSocketFrame, maskKey: [UInt8]? = randomMaskKey()) -> [UInt8] {
        let count = frame.payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 14)
        bytes.append((frame.fin ? 0x80 : 0) | (frame.reserved & 0x70) | frame.opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if count < 126 {
            bytes.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(count >> 8))
            bytes.append(UInt8(count & 0xFF))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        guard let maskKey else {
            bytes.append(contentsOf: frame.payload)
            return bytes
        }
        bytes.append(contentsOf: maskKey)
        let start = bytes.count
        bytes.append(contentsOf: frame.payload)
        bytes.withUnsafeMutableBytes { applyMask(maskKey, to: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        return bytes
    }

    /// XORs `buffer` with the repeated 4-byte key (masking and unmasking are the same), eight
    /// bytes at a time: a 16 MiB message is masked byte by byte in about a second in a debug build.
    static func applyMask(_ key: [UInt8], to buffer: UnsafeMutableRawBufferPointer) {
        precondition(key.count == 4)
        let count = buffer.count
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(key[index % 4]) << UInt64(index * 8) }
        var index = 0
        if let base = buffer.baseAddress {
            while index + 8 <= count {
                let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                base.storeBytes(of: (value.littleEndian ^ word).littleEndian, toByteOffset: index, as: UInt64.self)
                index += 8
            }
        }
        while index < count {
            buffer[index] ^= key[index % 4]
            index += 1
        }
    }

    /// Four bytes from the system's random source (`getrandom` on Linux), as §5.3 requires:
    /// a key the peer's applications cannot predict.
    static func randomMaskKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt32
        return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }
}
