import Foundation

/// Writes the response to one request. Handlers must finish writing before they return: once
/// the handler has returned the connection moves on and later writes are ignored.
///
/// High-level calls (`respond`, `serve`, `serveFile`) frame the response with Content-Length and
/// keep the connection alive. Low-level calls (`writeHead`, `write`, `closeConnection`) write
/// exactly what they are given, for fault injection; after them the connection is kept alive
/// only if the head announced a Content-Length and exactly that many body bytes were written,
/// because otherwise the client cannot tell where the response ends.
package final class ResponseWriter: @unchecked Sendable {
    private let socket: TestServerSocket
    private let isHeadRequest: Bool
    private let requestWantsClose: Bool

    // `lock` guards every var below. It is never held across a socket call, so a write blocked on
    // a slow client cannot stall a thread that only reads `peerHasGone`.
    private let lock = NSLock()
    private var anythingWritten = false      // any byte at all, including raw writes before a head
    private var finalHeads = 0               // final (non-1xx) status lines written
    private var declaredLength: Int?         // body length the last final head announced; nil = unknown framing
    private var bodyBytes = 0                // bytes written after the last final head
    private var responseSaysClose = false    // the response itself carried `Connection: close`
    private var peerGone = false
    private var closeRequested = false
    private var finished = false             // handler returned; ignore stray writes from now on
    private var beforeLastBytes: (@Sendable () -> Void)?   // called once, before the framed response's last send

    /// Body chunk size for `serve`/`serveFile`: big enough to be fast, small enough to stream.
    package static let chunkSize = 64 * 1024
    /// Fixed Last-Modified for served resources; If-Range may also carry this date.
    package static let lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"

    /// - Parameter beforeLastBytes: runs once, just before the send that completes a response
    ///   framed by Content-Length (or a HEAD response's head), so the server can stop counting the
    ///   request before the client can possibly have all of it.
    package init(socket: TestServerSocket, isHeadRequest: Bool, requestWantsClose: Bool,
                 beforeLastBytes: (@Sendable () -> Void)? = nil) {
        self.socket = socket
        self.isHeadRequest = isHeadRequest
        self.requestWantsClose = requestWantsClose
        self.beforeLastBytes = beforeLastBytes
    }

    // MARK: High level

    /// A complete response with Content-Length. `headers` override the defaults (matched
    /// case-insensitively), including Content-Length and Connection if a test wants to lie.
    package func respond(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        // 1xx/204/304 carry no body, and 204 must not carry Content-Length.
        let bodyless = (100..<200).contains(status) || status == 204 || status == 304
        var fields: [(String, String)] = []
        if !bodyless { fields.append(("Content-Length", String(body.count))) }
        fields.append(("Connection", requestWantsClose ? "close" : "keep-alive"))
        // Sorted so the header order is deterministic (dictionaries are not).
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            fields.removeAll { $0.0.lowercased() == name.lowercased() }
            fields.append((name, value))
        }
        var bytes = Self.head(status: status, headers: fields)
        if !bodyless && !isHeadRequest { bytes.append(body) }
        let bodyCount = bodyless || isHeadRequest ? 0 : body.count
        // Head and body go out in one send: fewer packets, no Nagle interplay.
        guard beginFinalHead(status: status, headers: fields, bodyless: bodyless) else { return }
        send(bytes, bodyCount: bodyCount)
    }

    package func respond(status: Int, headers: [String: String] = [:], text: String) {
        var merged = ["Content-Type": "text/plain; charset=utf-8"]
        merged.merge(headers) { _, given in given }
        respond(status: status, headers: merged, body: Data(text.utf8))
    }

    package func respond(json: String, status: Int = 200) {
        respond(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
    }

    // MARK: Low level

    /// Writes the status line and `headers` exactly as given: no Content-Length or Connection is
    /// added. A 1xx head (other than 101) may precede the final one.
    package func writeHead(status: Int, headers: [(String, String)]) {
        let informational = (100..<200).contains(status) && status != 101
        if !informational {
            guard beginFinalHead(status: status, headers: headers, bodyless: status == 204 || status == 304) else { return }
        }
        send(Self.head(status: status, headers: headers), bodyCount: 0)
    }

    /// Raw bytes to the socket. Returns silently (setting `peerHasGone`) if the peer has gone.
    package func write(_ data: Data) {
        lock.lock()
        let counted = finalHeads > 0
        lock.unlock()
        send(data, bodyCount: counted ? data.count : 0)
    }

    /// True once a write failed (peer closed or reset, or the server is stopping).
    package var peerHasGone: Bool {
        lock.lock()
        defer { lock.unlock() }
        return peerGone
    }

    /// Closes the connection right after whatever was written, like a server dying mid-response
    /// (the client sees a FIN, or a reset if it had unread bytes in flight). The connection loop
    /// then ends.
    package func closeConnection() {
        lock.lock()
        closeRequested = true
        lock.unlock()
        socket.close()
    }

    // MARK: Static resources

    /// Serves `data` as a static resource honouring Range (`bytes=N-`, `bytes=N-M`, `bytes=-N`)
    /// and If-Range; see `serveRanged`.
    ///
    /// With `stop`, the body stops at that offset of the whole resource (if this response
    /// reaches it): `stop.wait` is called, and the response then ends unfinished. A client
    /// told to cancel at that offset then leaves exactly that many bytes, however slow the
    /// machine is, where pacing the server by the clock would let a slow client overshoot.
    package func serve(_ data: Data, etag: String, contentType: String = "application/octet-stream", request: ServerRequest,
               stop: (offset: Int, wait: () -> Void)? = nil) {
        serveRanged(length: data.count, etag: etag, contentType: contentType, request: request, stop: stop) { offset, count in
            let start = data.startIndex + offset
            return data.subdata(in: start..<(start + count))
        }
    }

    /// Like `serve`, streaming from a file so multi-hundred-MB bodies never sit in memory.
    /// A missing file gives 404.
    package func serveFile(at url: URL, etag: String, request: ServerRequest, contentType: String = "application/octet-stream") {
        guard let handle = try? FileHandle(forReadingFrom: url),
              let size = try? handle.seekToEnd() else {
            respond(status: 404, text: "no such file: \(url.path)")
            return
        }
        defer { try? handle.close() }
        serveRanged(length: Int(size), etag: etag, contentType: contentType, request: request) { offset, count in
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                  let chunk = try? handle.read(upToCount: count), chunk.count == count else { return nil }
            return chunk
        }
    }

    /// Shared by `serve` and `serveFile`. If-Range (strong, exact comparison with `etag`, or equal
    /// to the fixed Last-Modified date) decides whether Range applies; a mismatch gives the full
    /// 200. A start at or beyond the end gives 416 with `Content-Range: bytes */<len>`. Multiple
    /// ranges and malformed Range headers are ignored (full 200), as RFC 9110 allows.
    private func serveRanged(length: Int, etag: String, contentType: String, request: ServerRequest,
                             stop: (offset: Int, wait: () -> Void)? = nil,
                             read: (_ offset: Int, _ count: Int) -> Data?) {
        var status = 200
        var range = 0..<length
        var fields: [(String, String)] = [
            ("Content-Type", contentType),
            ("ETag", etag),
            ("Last-Modified", Self.lastModified),
            ("Accept-Ranges", "bytes"),
        ]
        let ifRange = request.header("If-Range")
        let rangeApplies = ifRange == nil || ifRange == etag || ifRange == Self.lastModified
        if rangeApplies, let spec = request.header("Range").flatMap(Self.parseRange) {
            switch spec {
            case .from(let start, let end):
                if start >= length {
                    fields.append(("Content-Range", "bytes */\(length)"))
                    fields.append(("Content-Length", "0"))
                    fields.append(("Connection", requestWantsClose ? "close" : "keep-alive"))
                    writeHead(status: 416, headers: fields)
                    return
                }
                range = start..<(min(end ?? (length - 1), length - 1) + 1)
            case .suffix(let count):
                if count == 0 || length == 0 {
                    fields.append(("Content-Range", "bytes */\(length)"))
                    fields.append(("Content-Length", "0"))
                    fields.append(("Connection", requestWantsClose ? "close" : "keep-alive"))
                    writeHead(status: 416, headers: fields)
                    return
                }
                range = max(0, length - count)..<length
            }
            status = 206
            fields.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"))
        }
        fields.append(("Content-Length", String(range.count)))
        fields.append(("Connection", requestWantsClose ? "close" : "keep-alive"))
        writeHead(status: status, headers: fields)
        if request.isHead { return }

        var offset = range.lowerBound
        // A stop this response does not pass through is ignored.
        let stopOffset = stop.map(\.offset).flatMap { $0 > range.lowerBound && $0 < range.upperBound ? $0 : nil }
        let limit = stopOffset ?? range.upperBound
        while offset < range.upperBound {
            if peerHasGone || isClosing { return }
            if offset == limit, let stop {
                stop.wait()
                closeConnection()
                return
            }
            let count = min(Self.chunkSize, limit - offset)
            guard let data = read(offset, count) else {
                closeConnection()   // cannot complete the promised body; a short body + close is honest
                return
            }
            write(data)
            offset += count
        }
    }

    private enum RangeSpec { case from(Int, Int?), suffix(Int) }

    private static func parseRange(_ header: String) -> RangeSpec? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let count = Int(last), count >= 0 else { return nil }
            return .suffix(count)
        }
        guard let start = Int(first), start >= 0 else { return nil }
        if last.isEmpty { return .from(start, nil) }
        guard let end = Int(last), end >= start else { return nil }
        return .from(start, end)
    }

    // MARK: Connection-loop side

    private var isClosing: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closeRequested || finished
    }

    /// Called by the connection loop after the handler returned (or threw). Sends a 500 if
    /// nothing was written, then reports whether the connection can serve another request.
    package func complete(handlerError: Error?) -> Bool {
        lock.lock()
        let needs500 = !anythingWritten && !closeRequested && !peerGone
        lock.unlock()
        if needs500 {
            let reason = handlerError.map { "handler threw: \($0)" } ?? "handler returned without writing a response"
            respond(status: 500, text: reason)
        }
        lock.lock()
        defer { lock.unlock() }
        finished = true
        if closeRequested || peerGone || requestWantsClose || responseSaysClose { return false }
        // A handler that threw after writing part of a response leaves the stream unframed.
        if handlerError != nil && !needs500 { return false }
        guard finalHeads == 1, let declared = declaredLength else { return false }
        return isHeadRequest ? bodyBytes == 0 : bodyBytes == declared
    }

    // MARK: Plumbing

    /// Records a final head's framing; false if the writer is already done.
    private func beginFinalHead(status: Int, headers: [(String, String)], bodyless: Bool) -> Bool {
        var length: Int?
        var chunked = false
        var close = false
        for (name, value) in headers {
            switch name.lowercased() {
            case "content-length": length = length ?? Int(value.trimmingCharacters(in: .whitespaces))
            case "transfer-encoding": chunked = true   // the handler frames it; we cannot verify
            case "connection": close = close || value.lowercased().contains("close")
            default: break
            }
        }
        lock.lock()
        defer { lock.unlock() }
        if finished || closeRequested || peerGone { return false }
        finalHeads += 1
        bodyBytes = 0
        declaredLength = chunked ? nil : (bodyless ? 0 : length)
        responseSaysClose = responseSaysClose || close
        return true
    }

    private func send(_ data: Data, bodyCount: Int) {
        lock.lock()
        if finished || closeRequested || peerGone {
            lock.unlock()
            return
        }
        anythingWritten = true
        bodyBytes += bodyCount
        var completing: (@Sendable () -> Void)?
        if finalHeads > 0, let declared = declaredLength, bodyBytes == (isHeadRequest ? 0 : declared) {
            completing = beforeLastBytes
            beforeLastBytes = nil
        }
        lock.unlock()
        completing?()
        if !socket.sendAll(data) {
            lock.lock()
            peerGone = true
            lock.unlock()
        }
    }

    package static func head(status: Int, headers: [(String, String)]) -> Data {
        var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Data(text.utf8)
    }

    package static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }
}
