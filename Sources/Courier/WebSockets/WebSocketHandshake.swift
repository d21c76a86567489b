import Foundation

/// The client's side of the opening handshake (RFC 6455 §4.1): the `GET` with `Upgrade:
/// websocket` Courier writes itself over the connection libcurl made, and the checks of the
/// server's `101` reply.
struct WebSocketHandshake: Sendable {
    /// The 16 random bytes of `Sec-WebSocket-Key`, base64.
    let key: String
    let subprotocols: [String]
    /// Whether the request offers permessage-deflate (``WebSocketDeflateParameters/offer``).
    let offersDeflate: Bool

    init(subprotocols: [String], offersDeflate: Bool = false, key: String = WebSocketHandshake.randomKey()) {
        self.key = key
        self.subprotocols = subprotocols
        self.offersDeflate = offersDeflate
    }

    /// A new nonce: 16 bytes from the system's random source, base64 (§4.1 item 7).
    static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with: base64(SHA-1(key + GUID)).
    static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The handshake's own fields, which extra headers cannot replace (compared without case).
    static let reservedNames: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "content-length", "transfer-encoding",
    ]

    /// The request's bytes for `url` (ws, wss, http or https). `headers` are checked for
    /// characters that would split the head (``HeaderValidation``) and must not name a reserved field.
    func request(for url: URL, headers: [(name: String, value: String)]) throws(WebSocketError) -> [UInt8] {
        guard let host = url.host, !host.isEmpty else { throw .connectionFailed(.invalidURL(url.absoluteString)) }
        var target = url.path.isEmpty ? "/" : url.path
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            let encodedPath = components.percentEncodedPath
            target = encodedPath.isEmpty ? "/" : encodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
        }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = url.port, port != Self.defaultPort(of: url) { authority += ":\(port)" }
        var lines = [
            "GET \(target) HTTP/1.1",
            "Host: \(authority)",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)",
            "Sec-WebSocket-Version: 13",
        ]
        if !subprotocols.isEmpty {
            for name in subprotocols where name.isEmpty || !HeaderValidation.isToken(name) {
                throw .invalidUse("subprotocol \"\(name)\" is not an HTTP token")
            }
            lines.append("Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))")
        }
        if offersDeflate { lines.append("Sec-WebSocket-Extensions: \(WebSocketDeflateParameters.offer)") }
        for (name, value) in headers {
            do { try HeaderValidation.check(name: name, value: value) } catch { throw .connectionFailed(error) }
            guard !Self.reservedNames.contains(name.lowercased()) else {
                throw .invalidUse("the handshake's own header \(name) cannot be set")
            }
            lines.append("\(name): \(value)")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// 443 for wss and https, 80 otherwise.
    static func defaultPort(of url: URL) -> Int {
        ["wss", "https"].contains(url.scheme?.lowercased() ?? "") ? 443 : 80
    }

    /// Checks the server's reply head; returns the subprotocol it chose, if any.
    func validate(_ head: WebSocketResponseHead) throws(WebSocketError) -> String? {
        guard head.status == 101 else { throw .handshakeRejected(status: head.status, headers: HTTPHeaders(head.fields)) }
        func value(_ name: String) -> String? {
            head.fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        guard value("Upgrade")?.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" else {
            throw .invalidHandshake("the 101 has no \"Upgrade: websocket\"")
        }
        let connection = head.fields.filter { $0.name.caseInsensitiveCompare("Connection") == .orderedSame }
            .flatMap { $0.value.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard connection.contains("upgrade") else { throw .invalidHandshake("the 101 has no \"Connection: Upgrade\"") }
        guard let accept = value("Sec-WebSocket-Accept") else { throw .invalidHandshake("the 101 has no Sec-WebSocket-Accept") }
        guard accept.trimmingCharacters(in: .whitespaces) == Self.accept(for: key) else {
            throw .invalidHandshake("Sec-WebSocket-Accept \"\(accept)\" does not answer the key sent")
        }
        _ = try deflate(head)
        guard let chosen = value("Sec-WebSocket-Protocol")?.trimmingCharacters(in: .whitespaces), !chosen.isEmpty else {
            return nil
        }
        guard subprotocols.contains(chosen) else { throw .invalidHandshake("the server chose subprotocol \"\(chosen)\", which was not offered") }
        return chosen
    }

    /// The permessage-deflate the server accepted, or `nil`. Throws when it chose an extension
    /// not offered (any, when none was), or answered the offer with invalid parameters (§7).
    func deflate(_ head: WebSocketResponseHead) throws(WebSocketError) -> WebSocketDeflateParameters? {
        let values = head.fields.filter { $0.name.caseInsensitiveCompare("Sec-WebSocket-Extensions") == .orderedSame }
            .map { $0.value.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !values.isEmpty else { return nil }
        let extensions = values.joined(separator: ", ")
        guard offersDeflate else { throw .invalidHandshake("the server chose extensions that were not offered (\(extensions))") }
        return try WebSocketDeflateParameters.parse(extensions)
    }
}

/// The server's reply head: status and fields, in order.
struct WebSocketResponseHead: Sendable {
    var status: Int
    var fields: [(name: String, value: String)]

    /// The longest head accepted: a server that sends more is not answering a handshake.
    static let maximumSize = 64 << 10

    /// The head at the start of `bytes` and its length with the blank line, or `nil` while it is
    /// incomplete. Throws on a head that is not HTTP/1.1 or is longer than ``maximumSize``.
    static func parse(_ bytes: [UInt8]) throws(WebSocketError) -> (head: WebSocketResponseHead, length: Int)? {
        guard let end = endOfHead(bytes) else {
            guard bytes.count <= maximumSize else { throw .invalidHandshake("a reply head over \(maximumSize) bytes") }
            return nil
        }
        let text = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), statusLine[1].count == 3,
              let status = Int(statusLine[1]) else {
            throw .invalidHandshake("the reply is not HTTP/1.1: \"\(text.prefix(80))\"")
        }
        var fields: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .invalidHandshake("a header line without a colon") }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return (WebSocketResponseHead(status: status, fields: fields), end + 4)
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
