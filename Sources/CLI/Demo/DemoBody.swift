import Foundation

/// The large body `courier demo` downloads: 100 MB of deterministic bytes, so that its checksum
/// is known without storing it, and any range of it can be served at memory speed.
///
/// The bytes are a pseudo-random pattern (SplitMix64 output) of ``period`` bytes, repeated. The
/// period is a prime, so a resume that continued at a wrong offset of any power-of-two size
/// (a block, a page, a chunk) would not line up with the pattern and would change the checksum.
struct DemoBody: Sendable {
    /// 100 MB, as the progress bar counts them.
    static let size: Int64 = 100_000_000
    /// The pattern's length: a prime near 1 MB.
    static let period = 1_000_003
    /// The largest slice ``withBytes(at:count:_:)`` hands out at once.
    static let chunkSize = 256 << 10

    /// The pattern, followed by its own first ``chunkSize`` bytes, so that every slice of up to
    /// that many bytes is contiguous, wherever in the pattern it starts.
    private let pattern: [UInt8]

    init() {
        let count = Self.period + Self.chunkSize
        var bytes = [UInt8](repeating: 0, count: count + 8)
        var state: UInt64 = 0x0C0F_FEE0_D15E_A5E5
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < count {
                raw.storeBytes(of: Self.splitMix(&state).littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
        }
        // Only the first `period` bytes are the pattern; the rest repeat its start.
        for index in Self.period..<count { bytes[index] = bytes[index - Self.period] }
        pattern = Array(bytes.prefix(count))
    }

    /// Runs `body` with the `count` bytes of the body that start at `offset` (`count` at most ``chunkSize``).
    func withBytes<T>(at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        precondition(count <= Self.chunkSize && offset >= 0)
        let start = Int(offset % Int64(Self.period))
        return pattern.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
    }

    /// The checksum of the whole body, computed by streaming through it as the server sends it.
    func checksum() -> UInt64 {
        var checksum = DemoChecksum()
        var offset: Int64 = 0
        while offset < Self.size {
            let count = Int(min(Int64(Self.chunkSize), Self.size - offset))
            withBytes(at: offset, count: count) { checksum.update($0) }
            offset += Int64(count)
        }
        return checksum.value
    }

    /// SplitMix64: a tiny, well-mixed generator, enough for bytes that only need to look random.
    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The checksum both ends of the demo compute: FNV-1a (64-bit), taken over the bytes eight at a
/// time (little-endian words), and the last one to seven bytes one at a time.
///
/// Word by word rather than byte by byte: `swift run` builds without optimisation, where the
/// byte-wise loop takes about 1.5 s per 100 MB and this one about 0.4 s (measured). It tells
/// the demo's file apart from one with any byte changed, moved or missing; it is no defence
/// against someone who wants a collision (nor meant to be).
struct DemoChecksum {
    private static let prime: UInt64 = 0x0000_0100_0000_01B3
    private static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325

    private var hash = offsetBasis
    /// Bytes of a word the last update ended inside.
    private var carry: [UInt8] = []

    /// The checksum of everything given so far.
    var value: UInt64 {
        var hash = self.hash
        for byte in carry { hash = (hash ^ UInt64(byte)) &* Self.prime }
        return hash
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress, !bytes.isEmpty else { return }
        let end = next + bytes.count
        // Complete the word the last update ended inside.
        while !carry.isEmpty, next < end {
            carry.append(next.load(as: UInt8.self))
            next += 1
            if carry.count == 8 {
                let word = carry.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                hash = (hash ^ UInt64(littleEndian: word)) &* Self.prime
                carry.removeAll(keepingCapacity: true)
            }
        }
        var hash = self.hash
        // Four words per turn: the loop's own cost dominates in a debug build.
        while end - next >= 32 {
            hash = (hash ^ UInt64(littleEndian: next.loadUnaligned(as: UInt64.self))) &* Self.prime
            hash = (hash ^ UInt64(littleEndian: (next + 8).loadUnaligned(as: UInt64.self))) &* Self.prime
            hash = (hash ^ UInt64(littleEndian: (next + 16).loadUnaligned(as: UInt64.self))) &* Self.prime
            hash = (hash ^ UInt64(littleEndian: (next + 24).loadUnaligned(as: UInt64.self))) &* Self.prime
            next += 32
        }
        while end - next >= 8 {
            hash = (hash ^ UInt64(littleEndian: next.loadUnaligned(as: UInt64.self))) &* Self.prime
            next += 8
        }
        self.hash = hash
        while next < end {
            carry.append(next.load(as: UInt8.self))
            next += 1
        }
    }

    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// `0x` and 16 hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
