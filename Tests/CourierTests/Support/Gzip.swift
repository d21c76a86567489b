import Foundation

/// gzip bodies for a test server that really compresses (Foundation has no gzip encoder on Linux).
enum Gzip {
    /// The text ``fixture`` holds, compressed.
    static let fixtureText = (0..<200).map { "line \($0): the quick brown fox jumps over the lazy dog\n" }.joined()

    /// ``fixtureText`` as Python's `gzip.compress(text, compresslevel=9, mtime=0)` wrote it: real
    /// deflate compression (576 bytes for 10,690), made once and pasted here.
    static let fixture = Data(base64Encoded: [
        "H4sIAAAAAAACA53ay3ETQQBF0T1RTAjz+t9kw0eAQVhgY8COnoIMOGvVW+mUNHO7r3f3l+N8ffz4dDm+P929+3K8fbj9uj8+",
        "3H4fn5++fns8bj8vD/8+vr55eT7e3z6+uv7dBDYFNhU2DTYdNgM2EzYLNlu+U4IgEiIUIhYiGCIaIhwiHiIgIiKKiCj02yAi",
        "iogoIqKIiCIiiogoIqKIiCoiqoio9HchIqqIqCKiiogqIqqIqCKiiYgmIpqIaPQEISKaiGgioomIJiKaiOgioouILiK6iOj0",
        "UCkiuojoIqKLiC4ihogYImKIiCEihogY9J4hIoaIGCJiiIgpIqaImCJiiogpIqaImPTqKSKmiJgiYomIJSKWiFgiYomIJSKW",
        "iFhUI0TEEhFbRGwRsUXEFhFbRGwRsUXEFhGbApUVKkpUJzWqkyLVSZXqpEx1Uqc6KVSdVKpOSlUn2cB8STYsYFrBtIRpDdMi",
        "plVMy5jUMUMhM8XaNtmglhmKmaGaGcqZoZ4ZCpqhohlKmqGmmWoHH2SDsmaoa4bCZqhshtJmqG2G4maobobyZpqdipENKpyh",
        "xBlqnKHIGaqcocwZ6pyh0Bkqnel2ZEo2KHaGamcod4Z6Zyh4hopnKHmGmmcoembYeTrZoO4ZCp+h8hlKn6H2GYqfofoZyp+h",
        "/plply3IBiXQUAMNRdBQBQ1l0FAHDYXQUAkNpdAsu4lDNqiGhnJoqIeGgmioiIaSaKiJhqJoqIpm2zWt/7TxB/MtOfLCKQAA",
    ].joined())!

    /// `data` as a valid gzip member whose deflate stream is made of stored blocks (`BTYPE=00`):
    /// uncompressed, so any size can be made on the fly, but every decoder must still inflate it
    /// and check its CRC-32 and length. The result is 18 bytes + 5 per 65,535 longer than `data`.
    static func stored(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])   // magic, deflate, no flags, no mtime, unknown OS
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let isLast = offset + count == bytes.count
            out.append(isLast ? 1 : 0)   // BFINAL, BTYPE=00; the rest of the byte is padding
            append(UInt16(count), to: &out)
            append(~UInt16(count), to: &out)
            out.append(contentsOf: bytes[offset..<(offset + count)])
            offset += count
        } while offset < bytes.count
        append(crc32(bytes), to: &out)
        append(UInt32(truncatingIfNeeded: bytes.count), to: &out)
        return out
    }

    /// A gzip member that inflates to `decodedSize` zero bytes from about a thousandth of that:
    /// a decompression bomb, built by hand since Foundation has no deflate encoder on Linux. One
    /// dynamic-Huffman block whose code gives "copy 258 bytes from 1 back" (length 285,
    /// distance 0) two bits in all, after a literal zero; the CRC-32 and length are right, so
    /// every decoder inflates it to the end. 1 GiB comes from 1,040,480 bytes.
    static func bomb(decodedSize: Int) -> Data {
        var bits = BitWriter()
        bits.write(1, count: 1)   // BFINAL
        bits.write(2, count: 2)   // BTYPE = dynamic Huffman
        bits.write(29, count: 5)  // HLIT: 286 literal/length codes
        bits.write(0, count: 5)   // HDIST: 1 distance code
        bits.write(14, count: 4)  // HCLEN: 18 code length codes
        // Code length code lengths, in RFC 1951's order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4,
        // 12, 3, 13, 2, 14, 1: symbol 18 gets 1 bit, symbols 1 and 2 get 2 bits.
        for length in [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2] { bits.write(UInt32(length), count: 3) }
        // Canonical codes: 18 → 0, 1 → 10, 2 → 11 (Huffman codes go most significant bit first).
        func lengthSymbol(_ symbol: Int) {
            switch symbol {
            case 18: bits.writeCode(0b0, count: 1)
            case 1: bits.writeCode(0b10, count: 2)
            default: bits.writeCode(0b11, count: 2)
            }
        }
        func zeros(_ count: Int) {   // 11...138 zero lengths, as symbol 18
            lengthSymbol(18)
            bits.write(UInt32(count - 11), count: 7)
        }
        // Literal/length lengths: 0 → 2, 1...255 → 0, 256 → 2, 257...284 → 0, 285 → 1; distance 0 → 1.
        lengthSymbol(2); zeros(138); zeros(117)
        lengthSymbol(2); zeros(28)
        lengthSymbol(1)
        lengthSymbol(1)
        // Canonical literal/length codes: 285 → 0, 0 → 10, 256 → 11; distance 0 → 0.
        var produced = 0
        func literalZero() {
            bits.writeCode(0b10, count: 2)
            produced += 1
        }
        literalZero()
        // Each copy is code 0 (length 258) and code 0 (distance 1): two zero bits.
        let copies = (decodedSize - produced) / 258
        bits.writeZeros(2 * copies)
        produced += 258 * copies
        while produced < decodedSize { literalZero() }
        bits.writeCode(0b11, count: 2)   // end of block
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        out.append(bits.finish())
        append(crc32OfZeros(decodedSize), to: &out)
        append(UInt32(truncatingIfNeeded: decodedSize), to: &out)
        return out
    }

    /// The CRC-32 of `count` zero bytes, without running through them: a zero byte changes the
    /// register by a linear map (over GF(2)), and the map for `count` of them comes from squaring.
    static func crc32OfZeros(_ count: Int) -> UInt32 {
        func apply(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var result: UInt32 = 0
            for bit in 0..<32 where vector & (1 << bit) != 0 { result ^= matrix[bit] }
            return result
        }
        // Column `bit`: what one zero byte makes of a register holding only that bit.
        var matrix = (0..<32).map { bit -> UInt32 in
            let register = UInt32(1) << bit
            return crcTable[Int(register & 0xFF)] ^ (register >> 8)
        }
        var register: UInt32 = 0xFFFF_FFFF
        var remaining = count
        while remaining > 0 {
            if remaining & 1 == 1 { register = apply(matrix, register) }
            matrix = matrix.map { apply(matrix, $0) }
            remaining >>= 1
        }
        return ~register
    }

    /// Bits packed least significant first, as deflate stores them.
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var current: UInt8 = 0
        private var used = 0

        /// `count` bits of `value`, least significant first (header fields, extra bits).
        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count { push(value >> index & 1 == 1) }
        }

        /// A Huffman code of `count` bits, most significant first.
        mutating func writeCode(_ code: UInt32, count: Int) {
            for index in stride(from: count - 1, through: 0, by: -1) { push(code >> index & 1 == 1) }
        }

        /// `count` zero bits, whole bytes at a time.
        mutating func writeZeros(_ count: Int) {
            var remaining = count
            while remaining > 0, used != 0 {
                push(false)
                remaining -= 1
            }
            bytes.append(contentsOf: repeatElement(0, count: remaining / 8))
            for _ in 0..<(remaining % 8) { push(false) }
        }

        private mutating func push(_ bit: Bool) {
            if bit { current |= 1 << used }
            used += 1
            if used == 8 {
                bytes.append(current)
                current = 0
                used = 0
            }
        }

        mutating func finish() -> Data {
            if used > 0 { bytes.append(current) }
            return Data(bytes)
        }
    }

    /// CRC-32 (IEEE 802.3, reflected, as gzip uses it).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
