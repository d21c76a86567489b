import Foundation

/// The little HTTP/1.1 the demo server speaks: request heads in, response heads out, one
/// `Range` of bytes.
enum DemoHTTP {
    /// A request head, as far as the demo needs it.
    struct Request {
        let method: String
        let path: String
        /// Names lower-cased.
        let headers: [String: String]
        /// HTTP/1.1 keeps the connection unless asked not to; HTTP/1.0 closes it unless asked to keep it.
        let keepAlive: Bool

        /// The length of a body that follows the head (the demo's routes ignore it).
        var bodyLength: Int { headers["content-length"].flatMap(Int.init) ?? 0 }
    }

    /// The longest request head read: the client is Courier, whose heads are small.
    static let maximumHeadSize = 64 << 10

    /// Takes one request head off the front of `buffer`; `nil` while it is incomplete.
    /// - Throws: When the head is larger than ``maximumHeadSize`` or not HTTP.
    static func takeRequest(from buffer: inout Data) throws -> Request? {
        guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else {
            if buffer.count > maximumHeadSize { throw DemoServerError("request head too large") }
            return nil
        }
        let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex..<end.upperBound)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { throw DemoServerError("not an HTTP/1.x request") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let connection = headers["connection"]?.lowercased() ?? ""
        let keepAlive = requestLine[2] == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
        // Only the path: the demo's routes take no query.
        let path = requestLine[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        return Request(method: String(requestLine[0]), path: path, headers: headers, keepAlive: keepAlive)
    }

    /// A status line and header fields, and the blank line that ends them.
    static func head(status: Int, reason: String, fields: [(String, String)]) -> Data {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// What a `Range` header asks of a body of `size` bytes: one range, `bytes=FIRST-` or
    /// `bytes=FIRST-LAST`, the only kinds Courier sends.
    enum RangeRequest: Equatable {
        /// No `Range` (or one the demo does not serve, which HTTP allows to be ignored): the whole body.
        case whole
        /// Bytes `first...last`.
        case part(first: Int64, last: Int64)
        /// Starts past the end: `416`.
        case unsatisfiable
    }

    static func range(_ header: String?, size: Int64) -> RangeRequest {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let bounds = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]) else { return .whole }
        guard first < size else { return .unsatisfiable }
        let last = bounds[1].isEmpty ? size - 1 : min(Int64(bounds[1]) ?? -1, size - 1)
        return last >= first ? .part(first: first, last: last) : .whole
    }
}

/// Why the demo server gave up on a connection or could not start.
struct DemoServerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
