import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// A deterministic body of any length, generated piece by piece (never whole in memory) and
/// checked the same way: 1 MiB blocks of pseudo-random bytes, each stamped with its index in
/// its first 8 bytes, so that no two blocks are alike and a lost, repeated or reordered chunk
/// shows.
enum PatternBody {
    static let blockSize = 1 << 20
    private static let base = randomBytes(blockSize, seed: 7)

    /// Block `index`.
    static func block(_ index: Int) -> Data {
        var block = base
        stamp(&block, index)
        return block
    }

    /// Turns a block into block `index`, in place (no allocation when `block` is not shared):
    /// generating a gigabyte allocates nothing per block, so the figures of the memory tests
    /// are the client's.
    static func stamp(_ block: inout Data, _ index: Int) {
        if block.count != blockSize { block = base }
        withUnsafeBytes(of: UInt64(index).littleEndian) { stamp in
            block.replaceSubrange(0..<8, with: stamp)
        }
    }

    /// The bytes at `offset..<offset + count` (within one block or across several).
    static func bytes(at offset: Int, count: Int) -> Data {
        var result = Data(capacity: count)
        var position = offset
        while position < offset + count {
            let index = position / blockSize
            let start = position % blockSize
            let length = min(blockSize - start, offset + count - position)
            result.append(block(index).subdata(in: start..<(start + length)))
            position += length
        }
        return result
    }
}

/// Checks a body chunk by chunk against ``PatternBody`` as it arrives.
final class PatternVerifier: @unchecked Sendable {  // every var is behind `lock`.
    private let lock = NSLock()
    private var offset = 0
    private var blockIndex = -1
    private var block = Data()
    private var firstMismatch: Int?
    private(set) var largestChunk = 0

    /// Compares `chunk` with the pattern at the current offset (memcmp speed).
    func consume(_ chunk: Data) {
        lock.withLock {
            largestChunk = max(largestChunk, chunk.count)
            var consumed = 0
            while consumed < chunk.count {
                let index = offset / PatternBody.blockSize
                if index != blockIndex {
                    PatternBody.stamp(&block, index)
                    blockIndex = index
                }
                let start = offset % PatternBody.blockSize
                let length = min(PatternBody.blockSize - start, chunk.count - consumed)
                let equal = chunk.withUnsafeBytes { received in
                    block.withUnsafeBytes { expected in
                        memcmp(received.baseAddress! + consumed, expected.baseAddress! + start, length) == 0
                    }
                }
                if !equal, firstMismatch == nil { firstMismatch = offset }
                consumed += length
                offset += length
            }
        }
    }

    var count: Int { lock.withLock { offset } }
    var mismatch: Int? { lock.withLock { firstMismatch } }

    /// Asserts that exactly `length` bytes of the pattern were consumed.
    func assertComplete(_ length: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(count, length, "bytes received", file: file, line: line)
        XCTAssertNil(mismatch, "the body differs from the byte at this offset on", file: file, line: line)
    }
}

/// Bytes a server handler has handed to the kernel.
final class ByteCounter: @unchecked Sendable {  // `value` is behind `lock`.
    private let lock = NSLock()
    private var stored = 0

    func add(_ count: Int) { lock.withLock { stored += count } }
    var value: Int { lock.withLock { stored } }
}

extension TestServer {
    /// Serves `length` bytes of ``PatternBody`` at `path` with a Content-Length, in pieces of
    /// `piece` bytes, counting in `sent` what each `send` has handed to the kernel. With `hold`,
    /// the body stops at that offset until the gate opens. `finished` opens when the handler
    /// returns (the body sent, or the client gone).
    func routePattern(_ path: String, length: Int, piece: Int = 16 << 10, sent: ByteCounter? = nil,
                      contentType: String = "application/octet-stream", hold: (offset: Int, gate: Gate)? = nil,
                      finished: Gate? = nil) {
        route(path) { _, writer in
            defer { finished?.open() }
            writer.writeHead(status: 200, headers: [("Content-Type", contentType), ("Content-Length", String(length))])
            var offset = 0
            var blockIndex = -1
            var block = Data()
            while offset < length, !writer.peerHasGone {
                if let hold, offset == hold.offset { hold.gate.wait(timeout: 60) }
                let index = offset / PatternBody.blockSize
                if index != blockIndex {
                    PatternBody.stamp(&block, index)
                    blockIndex = index
                }
                let start = offset % PatternBody.blockSize
                var count = min(piece, PatternBody.blockSize - start, length - offset)
                if let hold, offset < hold.offset { count = min(count, hold.offset - offset) }
                writer.write(block[start..<(start + count)])   // a slice: no copy
                if writer.peerHasGone { break }
                sent?.add(count)
                offset += count
            }
        }
    }
}

/// The peak resident memory seen while something runs, sampled from /proc at most every
/// `every` calls of ``sample()``.
final class MemoryPeak: @unchecked Sendable {  // every var is behind `lock`.
    private let lock = NSLock()
    let baseline = residentMemoryBytes()
    private var peak = 0
    private var calls = 0
    private let every: Int

    init(every: Int = 32) {
        self.every = every
        peak = baseline
    }

    func sample() {
        let due = lock.withLock { () -> Bool in
            calls += 1
            return calls % every == 0
        }
        guard due else { return }
        let now = residentMemoryBytes()
        lock.withLock { peak = max(peak, now) }
    }

    var growth: Int { lock.withLock { peak - baseline } }
}

/// The kernel's queues of the TCP connections to or from `port` on 127.0.0.1 (/proc/net/tcp):
/// bytes sent and not yet acknowledged, plus bytes received and not yet read, summed.
func kernelQueuedBytes(port: Int) -> Int {
    // Read to the end: /proc files claim a size of 0, and one read returns a page at most.
    guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return 0 }
    defer { try? handle.close() }
    let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    let hexPort = String(format: ":%04X", port)
    var total = 0
    for line in table.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        guard fields.count > 4, fields[1].hasSuffix(hexPort) || fields[2].hasSuffix(hexPort) else { continue }
        let queues = fields[4].split(separator: ":")
        guard queues.count == 2 else { continue }
        total += (Int(queues[0], radix: 16) ?? 0) + (Int(queues[1], radix: 16) ?? 0)
    }
    return total
}

/// How many connections the server on `port` (127.0.0.1) has open with a client that has not
/// closed its end (/proc/net/tcp, state ESTABLISHED): a client that closes or resets its end
/// leaves the server's side in CLOSE_WAIT, or gone.
func openConnections(toPort port: Int) -> Int {
    guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return 0 }
    defer { try? handle.close() }
    let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    let local = String(format: ":%04X", port)
    return table.split(separator: "\n").dropFirst().filter { line in
        let fields = line.split(separator: " ")
        return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "01"
    }.count
}

/// The size of the 1 GiB tests: a smaller one under Thread Sanitizer, whose instrumentation
/// makes every byte copied ten times slower.
let gigabyteTestSize = isThreadSanitizerActive ? 64 << 20 : 1 << 30
