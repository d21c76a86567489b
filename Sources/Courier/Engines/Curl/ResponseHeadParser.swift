import Foundation

/// Reads response heads from libcurl's header callback, one line at a time.
///
/// libcurl hands over every line of every head it reads: `1xx` interim heads (`100 Continue`,
/// `103 Early Hints`) before the final one, and trailers after a chunked body. Only the final
/// head counts; a status line starts a new head, an empty line ends it.
struct ResponseHeadParser {
    /// A complete final head.
    struct Head: Equatable {
        var statusCode: Int
        var version: String
        /// The fields as read, for ``HTTPHeaders/init(raw:)``: no string is made of them here.
        var raw: RawHeaderFields
        /// The head's lines as they arrived, each with its line ending, interim heads before it
        /// included; empty unless the parser was asked to keep them (``init(keepsBytes:)``).
        var bytes: [UInt8] = []

        /// The fields as pairs (made now; the engine passes ``raw`` on instead).
        var fields: [(name: String, value: String)] { raw.fields }

        static func == (lhs: Head, rhs: Head) -> Bool {
            lhs.statusCode == rhs.statusCode && lhs.version == rhs.version
                && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
        }

        var fieldDictionary: [String: String] {
            var joined: [String: String] = [:]
            var canonical: [String: String] = [:]   // lower-cased name → first spelling seen
            for (name, value) in fields {
                let key = canonical[name.lowercased(), default: name]
                canonical[name.lowercased()] = key
                if let existing = joined[key] { joined[key] = existing + ", " + value } else { joined[key] = value }
            }
            return joined
        }
    }

    enum Event: Equatable {
        /// Nothing complete yet (or a line after the final head, such as a trailer).
        case pending
        /// The final head is complete.
        case head(Head)
        /// The server's reply is not HTTP.
        case malformed(String)
    }

    /// The head being read: its status line, and its fields so far.
    private var current: (statusCode: Int, version: String, fields: RawHeaderBuilder)?
    /// Bytes of head lines taken so far, interim heads included.
    private var headBytes = 0
    /// Set once the final head is complete: later lines are trailers.
    private(set) var finished = false
    /// Whether the lines are kept as they arrived (``Head/bytes``): only for those who print
    /// heads as received (the CLI's `-i`, `-D`), so that no other response pays for the copy.
    private let keepsBytes: Bool
    /// The lines of the head being read (and the interim heads before it), as they arrived.
    private var received: [UInt8] = []

    init(keepsBytes: Bool = false) {
        self.keepsBytes = keepsBytes
    }

    /// Takes back a final head that turned out not to be the last: libcurl answered it itself
    /// (an authentication challenge), and another head follows in the same transfer. Its
    /// `bytes` go before the next head's, as curl writes both.
    mutating func reopen(after head: Head) {
        finished = false
        if keepsBytes { received = head.bytes }
    }

    /// The head taken back by ``reopen(after:)`` was the last after all (its body is arriving,
    /// or the transfer ended): later lines are trailers again.
    mutating func settle() {
        finished = true
        received = []
    }

    /// Whether a final head has been read.
    var hasHead: Bool { finished }

    /// Takes one line, with or without its CRLF.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Event {
        guard !finished else { return .pending }
        // libcurl limits a transfer's head lines to 300 KiB from 8.3.0 (some distributions
        // backport it: Debian 12's 7.88.1 has it, Debian 11's 7.74.0 does not); older ones only
        // limit each line (100 KiB). The same limit, and libcurl's words, for every libcurl, so
        // that no server can grow a head without bound.
        headBytes += bytes.count
        if headBytes > Self.maximumHeadBytes {
            return .malformed("Too large response headers: \(headBytes) > \(Self.maximumHeadBytes)")
        }
        if keepsBytes { received.append(contentsOf: bytes) }
        // Worked on as bytes: one String per name and value, none per line. (As a String, "\r\n"
        // would also be a single Character that neither hasSuffix("\r") nor hasSuffix("\n") matches.)
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        // libcurl refuses a NUL in a head from 7.83.0 on, but older ones hand it over: refused
        // here, so that no libcurl lets one through (RFC 9110 §5.5: invalid and dangerous).
        if Self.find(0, in: line) != nil {
            return .malformed("a header line contains a NUL byte")
        }
        if line.starts(with: Self.statusPrefix) {
            return startHead(line)
        }
        guard current != nil else {
            return .malformed("the reply does not start with an HTTP status line")
        }
        if line.isEmpty {
            let head = current!
            current = nil
            // Interim responses (except 101, which Courier never asks for) are followed by the real one.
            if (100...199).contains(head.statusCode) { return .pending }
            finished = true
            defer { received = [] }
            return .head(Head(statusCode: head.statusCode, version: head.version, raw: head.fields.build(), bytes: received))
        }
        // Appended in place: a copy of the head here would copy its fields for every line.
        if line[0] == 0x20 || line[0] == 0x09 {
            // An obsolete folded line continues the previous field's value. Right after the status
            // line there is none (RFC 9112 §2.2: reject, or skip the line): 7.88 refuses it
            // itself, 7.74 hands it over, 8.x unfolds it onto the status line first.
            guard !current!.fields.isEmpty else {
                return .malformed("a header line starts with whitespace and no field precedes it")
            }
            current!.fields.continueLast(with: Self.trimmed(line[...]))
        } else {
            guard let colon = Self.find(UInt8(ascii: ":"), in: line) else {
                return .malformed("a header line has no colon")
            }
            current!.fields.append(name: line[..<colon], value: Self.trimmed(line[(colon + 1)...]))
        }
        return .pending
    }

    /// Takes one line given as any byte collection (tests).
    mutating func consume<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Event {
        Array(bytes).withUnsafeBytes { consume($0) }
    }

    private static let statusPrefix = Array("HTTP/".utf8)

    /// How many fields a head is given room for before its first one (nginx sends 6 to 8 with a
    /// small file; more just grows the array).
    static let usualFieldCount = 12

    /// libcurl's own limit (`MAX_HTTP_RESP_HEADER_SIZE`, 8.3.0).
    static let maximumHeadBytes = 300 * 1024

    /// The bytes without leading and trailing spaces and tabs, as a String.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return bytes[start..<end]
    }

    /// Reads a status line: `HTTP/` and a version of digits and dots, then a three-digit status,
    /// then an optional reason. Checked as bytes, so that what reaches `Head.version` is ASCII: a
    /// check on the String would compare grapheme clusters, and `HTTP/` followed by a combining
    /// mark is not `HTTP/` to a String (the fuzzer found that).
    private mutating func startHead(_ line: UnsafeRawBufferPointer) -> Event {
        let versionEnd = line.firstIndex(of: 0x20) ?? line.endIndex
        let versionNumber = line[Self.statusPrefix.count..<versionEnd]
        var statusStart = versionEnd
        while statusStart < line.endIndex, line[statusStart] == 0x20 { statusStart += 1 }
        let statusEnd = min(statusStart + 3, line.endIndex)
        let status = line[statusStart..<statusEnd]
        guard !versionNumber.isEmpty, versionNumber.allSatisfy({ Self.isDigit($0) || $0 == 0x2E }),
              status.count == 3, status.allSatisfy(Self.isDigit), statusEnd == line.endIndex || line[statusEnd] == 0x20,
              let code = Int(String(decoding: status, as: UTF8.self)), code >= 100
        else {
            return .malformed("the status line '\(String(decoding: line.prefix(80), as: UTF8.self))' is not valid")
        }
        // Room for a usual head's fields at once: grown one append at a time, the arrays were
        // reallocated four or five times a response.
        current = (code, String(decoding: line[..<versionEnd], as: UTF8.self), RawHeaderBuilder(capacity: Self.usualFieldCount))
        return .pending
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// The index of the first `byte` in `line`, found by `memchr`: each line is searched twice,
    /// for a NUL and for its colon, and a byte-by-byte search was a large share of its parsing
    /// (Performance.md).
    private static func find(_ byte: UInt8, in line: UnsafeRawBufferPointer) -> Int? {
        guard let base = line.baseAddress, !line.isEmpty,
              let found = memchr(base, Int32(byte), line.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
