import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a byte stream into lines, whatever the chunk boundaries: a line (or a CRLF, or a UTF-8
/// sequence) split between two chunks comes out whole. Lines come out without their ending.
///
/// A line not ended yet is held whole until its ending arrives: a server that never sends one
/// makes it grow without bound (as with any line reader).
struct LineSplitter: Sendable {
    /// What ends a line.
    enum Endings: Sendable {
        /// `\n` or `\r\n` (a lone `\r` is part of the line): ``ResponseBodyStream/lines``.
        case lineFeed
        /// `\n`, `\r\n`, or a lone `\r`: server-sent events (WHATWG HTML, "event stream
        /// interpretation").
        case any
    }

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    let endings: Endings
    /// The start of the line not ended yet.
    private var pending = Data()
    /// The last chunk ended with a `\r` that ended a line (``Endings/any``): a `\n` opening the
    /// next chunk belongs to it.
    private var skipsLineFeed = false

    init(endings: Endings) {
        self.endings = endings
    }

    /// The lines `chunk` completes, in order.
    mutating func lines(in chunk: Data) -> [Data] {
        var lines: [Data] = []
        chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress, raw.count > 0 else { return }
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            if skipsLineFeed {
                skipsLineFeed = false
                if bytes[0] == Self.lineFeed { start = 1 }
            }
            switch endings {
            case .lineFeed:
                while start < raw.count, let found = memchr(base + start, Int32(Self.lineFeed), raw.count - start) {
                    let end = base.distance(to: UnsafeRawPointer(found))
                    var line = take(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                    if line.last == Self.carriageReturn { line.removeLast() }
                    lines.append(line)
                    start = end + 1
                }
            case .any:
                var index = start
                while index < raw.count {
                    let byte = bytes[index]
                    if byte == Self.lineFeed || byte == Self.carriageReturn {
                        lines.append(take(UnsafeRawBufferPointer(rebasing: raw[start..<index])))
                        if byte == Self.carriageReturn {
                            if index + 1 < raw.count {
                                if bytes[index + 1] == Self.lineFeed { index += 1 }
                            } else {
                                skipsLineFeed = true
                            }
                        }
                        start = index + 1
                    }
                    index += 1
                }
            }
            if start < raw.count { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        return lines
    }

    /// The last line, when the stream ends without ending it; `nil` when there is none.
    mutating func finish() -> Data? {
        var line = pending
        pending = Data()
        // A `\r` at the very end is what is left of a `\r\n` cut short.
        if endings == .lineFeed, line.last == Self.carriageReturn { line.removeLast() }
        return line.isEmpty ? nil : line
    }

    /// The pending start of the line followed by `bytes`, as one line.
    private mutating func take(_ bytes: UnsafeRawBufferPointer) -> Data {
        guard !pending.isEmpty else { return Data(copying: bytes) }
        defer { pending = Data() }
        pending.append(contentsOf: bytes)
        return pending
    }
}
