import Courier
import Foundation

/// What the demo server answers:
///
/// | path | answer |
/// |---|---|
/// | `/hello` | a small JSON document |
/// | `/demo.bin` | ``DemoBody``'s 100 MB, with `ETag`, `Range` (`206`, `Content-Range`) and `If-Range` |
/// | `/demo.bin.checksum` | the body's ``DemoChecksum``, as `0x` and 16 hex digits |
///
/// The whole body is sent at ``wholeBodyRate`` at most, so that a terminal shows the bar move,
/// and stops at ``holdOffset`` until the client goes away: the demo cancels half-way, and
/// however slow or loaded the machine, the download cannot end before that cancel lands. A
/// range (the resume) goes whole, as fast as the client takes it.
final class DemoRoutes: Sendable {
    static let etag = "\"courier-demo-1\""
    /// Bytes a second for a whole `/demo.bin`: 100 MB in about a second.
    static let wholeBodyRate = Double(DemoBody.size)
    /// Where a whole `/demo.bin` stops: past the half (the client cancels at 50%).
    static let holdOffset = DemoBody.size / 100 * 55
    /// How long it waits there for the client to cancel before it gives up on the response.
    static let holdTimeout: Int32 = 30_000

    private let body = DemoBody()
    private let corruptsResumes: Bool
    /// The body's checksum, computed on a thread of its own from the start (it reads 100 MB).
    private let checksum = Locked<UInt64?>(nil)
    private let checksumDone = DispatchGroup()
    private let lastRange = Locked<String?>(nil)

    init(corruptsResumes: Bool) {
        self.corruptsResumes = corruptsResumes
        checksumDone.enter()
        let thread = Thread { [body, checksum, checksumDone] in
            let value = body.checksum()
            checksum.withLock { $0 = value }
            checksumDone.leave()
        }
        thread.name = "courier.demo.checksum"
        thread.start()
    }

    /// Answers `request`; `false` when the connection cannot go on (the client went away).
    func respond(to request: DemoHTTP.Request, on connection: DemoConnection) -> Bool {
        guard request.method == "GET" else {
            return send(status: 405, "Method Not Allowed", type: "text/plain", Data("GET only\n".utf8), request, connection)
        }
        switch request.path {
        case "/hello":
            let json = #"{"greeting":"Hello from courier demo","served_by":"a loopback HTTP server inside this process"}"#
            return send(status: 200, "OK", type: "application/json", Data(json.utf8), request, connection)
        case "/demo.bin":
            return sendBody(request, connection)
        case "/demo.bin.checksum":
            return send(status: 200, "OK", type: "text/plain", Data((DemoChecksum.hex(waitForChecksum()) + "\n").utf8), request, connection)
        default:
            return send(status: 404, "Not Found", type: "text/plain", Data("no such demo resource\n".utf8), request, connection)
        }
    }

    /// The `Range` and `If-Range` of the last request for `/demo.bin`, as received (`nil`: none).
    var lastRangeRequest: String? { lastRange.current }

    /// The body's checksum, once computed.
    func waitForChecksum() -> UInt64 {
        checksumDone.wait()
        return checksum.current ?? 0
    }

    private func send(status: Int, _ reason: String, type: String, _ content: Data,
                      _ request: DemoHTTP.Request, _ connection: DemoConnection) -> Bool {
        let head = DemoHTTP.head(status: status, reason: reason, fields: [
            ("Content-Type", type), ("Content-Length", String(content.count)), ("Server", "courier-demo"),
            ("Connection", request.keepAlive ? "keep-alive" : "close"),
        ])
        return connection.send(head + content)
    }

    /// `/demo.bin`, whole or the range asked for (unless `If-Range` names another version).
    private func sendBody(_ request: DemoHTTP.Request, _ connection: DemoConnection) -> Bool {
        let size = DemoBody.size
        lastRange.withLock { last in
            last = request.headers["range"].map { range in
                "Range: \(range)" + (request.headers["if-range"].map { ", If-Range: \($0)" } ?? "")
            }
        }
        var range = DemoHTTP.range(request.headers["range"], size: size)
        if let ifRange = request.headers["if-range"], ifRange != Self.etag { range = .whole }
        var fields = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes"), ("ETag", Self.etag),
                      ("Server", "courier-demo"), ("Connection", request.keepAlive ? "keep-alive" : "close")]
        let first: Int64, last: Int64
        switch range {
        case .whole:
            (first, last) = (0, size - 1)
            fields.append(("Content-Length", String(size)))
            guard connection.send(DemoHTTP.head(status: 200, reason: "OK", fields: fields)) else { return false }
        case let .part(start, end):
            (first, last) = (start, end)
            fields += [("Content-Length", String(end - start + 1)), ("Content-Range", "bytes \(start)-\(end)/\(size)")]
            guard connection.send(DemoHTTP.head(status: 206, reason: "Partial Content", fields: fields)) else { return false }
        case .unsatisfiable:
            fields += [("Content-Length", "0"), ("Content-Range", "bytes */\(size)")]
            return connection.send(DemoHTTP.head(status: 416, reason: "Range Not Satisfiable", fields: fields))
        }
        let paced = range == .whole
        let started = DispatchTime.now().uptimeNanoseconds
        var offset = first
        while offset <= last {
            let count = Int(min(Int64(DemoBody.chunkSize), last - offset + 1))
            let sent = body.withBytes(at: offset, count: count) { bytes -> Bool in
                guard corruptsResumes, !paced, offset == first else { return connection.send(bytes) }
                var altered = Data(bytes)
                altered[altered.startIndex] ^= 0xFF
                return connection.send(altered)
            }
            guard sent else { return false }
            offset += Int64(count)
            if paced, offset >= Self.holdOffset {
                // Until the client cancels (or the server stops); then the response is over, unfinished.
                connection.waitForClose(timeoutMilliseconds: Self.holdTimeout)
                return false
            }
            if paced {
                // Ahead of the rate: wait until the bytes sent are due (pacing, not synchronisation).
                let due = Double(offset - first) / Self.wholeBodyRate
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                if due > elapsed { usleep(UInt32((due - elapsed) * 1e6)) }
            }
        }
        return true
    }
}
