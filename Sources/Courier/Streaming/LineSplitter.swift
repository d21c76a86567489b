import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a byte stream into lines, whatever the chunk boundaries: a line (or a CRLF, or a UTF-8
/// sequence) split between two chunks comes out whole. Lines come out without their ending.
///
/// A line not ended yet is held until its ending arrives, but never more than
/// ``maximumLength`` bytes of it: a line that would grow past that (a server that never sends a
/// newline, or sends a 200 MB line) is an error, ``NetworkError/limitExceeded(_:)``, before it is stored, so what
/// the splitter holds stays under the limit whatever the server sends.
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
    /// The longest line accepted, in bytes, its ending not counted.
    let maximumLength: Int
    /// The limit reported when a line is longer than ``maximumLength``.
    let limitKind: LimitExceeded.Kind
    /// The start of the line not ended yet.
    private var pending = Data()
    /// The last chunk ended with a `\r` that ended a line (``Endings/any``): a `\n` opening the
    /// next chunk belongs to it.
    private var skipsLineFeed = false

    init(endings: Endings, maximumLength: Int = .max, limitKind: LimitExceeded.Kind = .lineLength) {
        self.endings = endings
        self.maximumLength = max(0, maximumLength)
        self.limitKind = limitKind
    }

    /// Bytes of the line not ended yet that the splitter holds: never more than ``maximumLength``
    /// (plus one `\r` that may be the start of a `\r\n`, with ``Endings/lineFeed``).
    var pendingByteCount: Int { pending.count }

    /// What a chunk completes: its lines, in order, and, when a line was longer than
    /// ``maximumLength`` (ended or not), the error that ends the stream. The lines before that
    /// one come out first; the long line is not stored, and the splitter then holds nothing.
    struct Output {
        var lines: [Data]
        var limitExceeded: NetworkError?
    }

    /// The lines `chunk` completes, and the error of a line past the limit (see ``Output``).
    mutating func split(_ chunk: Data) -> Output {
        var lines: [Data] = []
        var tooLong: Int?
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
                    let ending = end > start ? bytes[end - 1] == Self.carriageReturn : pending.last == Self.carriageReturn
                    let length = pending.count + (end - start) - (ending ? 1 : 0)
                    if length > maximumLength { tooLong = length; return }
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
                        let length = pending.count + (index - start)
                        if length > maximumLength { tooLong = length; return }
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
            guard start < raw.count else { return }
            // The start of the next line: stored only if the line is still within the limit
            // (a `\r` that may belong to a `\r\n` is not counted yet).
            let rest = raw.count - start
            let length = pending.count + rest - (endings == .lineFeed && bytes[raw.count - 1] == Self.carriageReturn ? 1 : 0)
            if length > maximumLength { tooLong = length; return }
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start...]))
        }
        guard let tooLong else { return Output(lines: lines) }
        pending = Data()
        return Output(lines: lines, limitExceeded: .limitExceeded(LimitExceeded(kind: limitKind, limit: Int64(maximumLength),
                                                                              received: Int64(tooLong))))
    }

    /// The lines `chunk` completes; throws instead when one of them is past the limit.
    mutating func lines(in chunk: Data) throws(NetworkError) -> [Data] {
        let output = split(chunk)
        if let limitExceeded = output.limitExceeded { throw limitExceeded }
        return output.lines
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
