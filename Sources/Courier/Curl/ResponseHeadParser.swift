/// Reads response heads from libcurl's header callback, one line at a time.
///
/// libcurl hands over every line of every head it reads: `1xx` interim heads (`100 Continue`,
/// `103 Early Hints`) before the final one, and trailers after a chunked body. Only the final
/// head counts; a status line starts a new head, an empty line ends it.
struct ResponseHeadParser {
    /// A complete final head.
    struct Head: Equatable {
        var statusCode: Int
        /// `HTTP/1.1`, `HTTP/2`, ...
        var version: String
        /// In the order received; names as sent.
        var fields: [(name: String, value: String)]

        static func == (lhs: Head, rhs: Head) -> Bool {
            lhs.statusCode == rhs.statusCode && lhs.version == rhs.version
                && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
        }

        /// The fields as one dictionary, repeated names joined with `, ` (RFC 9110 §5.3).
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

    private var current: Head?
    /// Set once the final head is complete: later lines are trailers.
    private(set) var finished = false

    /// Whether a final head has been read.
    var hasHead: Bool { finished }

    /// Takes one line, with or without its CRLF.
    mutating func consume<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Event {
        guard !finished else { return .pending }
        // Trimmed as bytes: as a String, "\r\n" is one Character that neither hasSuffix("\r") nor
        // hasSuffix("\n") would match.
        var end = bytes.endIndex
        var count = bytes.count
        while count > 0, let last = bytes.index(bytes.startIndex, offsetBy: count - 1, limitedBy: end),
              bytes[last] == 0x0A || bytes[last] == 0x0D {
            end = last
            count -= 1
        }
        let line = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            return startHead(line)
        }
        guard var head = current else {
            return .malformed("the reply does not start with an HTTP status line")
        }
        if line.isEmpty {
            current = nil
            // Interim responses (except 101, which Courier never asks for) are followed by the real one.
            if (100...199).contains(head.statusCode) { return .pending }
            finished = true
            return .head(head)
        }
        if line.first == " " || line.first == "\t", !head.fields.isEmpty {
            // An obsolete folded line continues the previous field's value.
            head.fields[head.fields.count - 1].value += " " + line.trimmingWhitespace()
        } else {
            guard let colon = line.firstIndex(of: ":") else {
                return .malformed("a header line has no colon")
            }
            head.fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingWhitespace()))
        }
        current = head
        return .pending
    }

    private mutating func startHead(_ line: String) -> Event {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, let status = Int(parts[1]), (100...999).contains(status) else {
            return .malformed("the status line '\(line.prefix(80))' is not valid")
        }
        current = Head(statusCode: status, version: String(parts[0]), fields: [])
        return .pending
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
