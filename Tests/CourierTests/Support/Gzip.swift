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
