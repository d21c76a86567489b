import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread of one WebSocket: connects, does the opening handshake, then reads, writes,
/// answers pings, keeps time and closes, waiting in `poll` on the socket and the task's wakeup
/// pipe. The only code that touches the connection; it runs no caller code (handlers go to the
/// task's delivery queue) and holds no lock while it waits.
final class WebSocketConnectionLoop: @unchecked Sendable {  // after start(), used by its own thread alone
    typealias Connect = (_ url: URL, _ timeout: TimeInterval, _ isCancelled: @escaping @Sendable () -> Bool) throws(WebSocketError) -> any WebSocketByteStream
    /// The handshake's extra fields for a URL (the first, or one a redirect led to).
    typealias Headers = @Sendable (_ url: URL) -> [(name: String, value: String)]

    private let task: WebSocketTask
    private let connect: Connect
    /// A new one (a new key) for each connection a redirect makes.
    private var handshake: WebSocketHandshake
    private let headers: Headers
    private let observers: WebSocketUpgradeObservers
    /// The 101 has come: failures after it are the open socket's, not the upgrade's.
    private var opened = false

    private enum Kind { case data, ping, pong, close }
    private struct Write {
        var bytes: [UInt8]
        var offset = 0
        var completion: WebSocketCompletion = .none
        var kind: Kind
        /// What it counts in the task's queued bytes (data frames).
        var queued = 0
    }

    private var writes: [Write] = []
    private var stream: (any WebSocketByteStream)?
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    /// Compresses our messages when permessage-deflate was negotiated (and zlib can honour its window).
    private var deflater: WebSocketDeflater?
    /// Our close frame has been queued (no data after it), and when the peer's must have come.
    private var closeSent = false
    private var closeDeadline: Date?
    /// The peer's close, answered: the socket ends once our answer is written.
    private var peerClose: (WebSocketCloseCode, String)?
    private var lastReceived = Date()
    private var lastWriteProgress = Date()
    private var pingSentAt: Date?

    init(task: WebSocketTask, headers: @escaping Headers, observers: WebSocketUpgradeObservers = WebSocketUpgradeObservers(),
         connect: @escaping Connect) {
        self.task = task
        self.connect = connect
        self.headers = headers
        self.observers = observers
        self.handshake = WebSocketHandshake(subprotocols: task.options.subprotocols, offersDeflate: task.offersDeflate)
        let limit = max(0, task.options.maximumMessageSize)
        decoder = WebSocketFrameDecoder(maximumPayload: limit)
        assembler = WebSocketMessageAssembler(maximumMessageSize: limit)
    }

    /// Starts the socket's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "courier.websocket"
        thread.start()
    }

    private func run() {
        let task = self.task
        let started = DispatchTime.now()
        do {
            let deadline = Date().addingTimeInterval(task.options.handshakeTimeout)
            var url = task.url
            var redirects = 0
            while true {
                let fields = headers(url)
                let request = try handshake.request(for: url, headers: fields)
                observers.willSend(url: url, headers: fields)
                let stream = try connect(url, max(0.001, deadline.timeIntervalSinceNow)) { task.hasEnded }
                self.stream = stream
                let follows = redirects < task.options.maximumRedirects
                guard let next = try openingHandshake(stream, url: url, request: request, deadline: deadline, started: started,
                                                      followsRedirects: follows) else { break }
                // A new connection, and a new key for it (§4.1: one nonce per connection).
                self.stream = nil
                redirects += 1
                url = next
                handshake = WebSocketHandshake(subprotocols: task.options.subprotocols, offersDeflate: task.offersDeflate)
            }
            opened = true
            if let stream { try exchange(stream) }
        } catch {
            if !opened { observers.didFail(error as? WebSocketError ?? .connectionLost("\(error)"), url: task.url,
                                           handshakeTimeout: task.options.handshakeTimeout) }
            fail(error)
        }
        // Whatever ended it (the closing handshake may finish before every frame queued ahead of
        // our close was written), no sender is left waiting.
        failWrites(task.end.map(Self.error(of:)) ?? .closed)
        // The connection closes with the stream (the easy handle's cleanup).
        stream = nil
    }

    // MARK: - The opening handshake

    /// The handshake on `stream`: opens the socket and returns `nil`, or returns where a redirect
    /// leads when `followsRedirects`.
    private func openingHandshake(_ stream: any WebSocketByteStream, url: URL, request: [UInt8], deadline: Date, started: DispatchTime,
                                  followsRedirects: Bool) throws -> URL? {
        var offset = 0
        while offset < request.count {
            let sent = try request.withUnsafeBytes { (bytes) throws(WebSocketError) -> Int in
                try stream.send(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            offset += sent
            if sent == 0 { try waitDuringHandshake(stream, events: Int16(POLLOUT), deadline: deadline) }
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = try buffer.withUnsafeMutableBytes { (bytes) throws(WebSocketError) -> Int? in try stream.receive(into: bytes) }
            guard let count else {
                try waitDuringHandshake(stream, events: Int16(POLLIN), deadline: deadline)
                continue
            }
            guard count > 0 else { throw WebSocketError.connectionLost("the server closed the connection during the opening handshake") }
            reply.append(contentsOf: buffer[..<count])
            guard let (head, length) = try WebSocketResponseHead.parse(reply) else { continue }
            let seconds = TimeInterval(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let response = HTTPResponse(statusCode: head.status, headers: HTTPHeaders(head.fields), url: url,
                                        metrics: TransferMetrics(total: seconds))
            observers.didReceive(response)
            if followsRedirects, let next = try WebSocketRedirect.target(of: head, from: url) { return next }
            let subprotocol = try handshake.validate(head)
            if let parameters = try handshake.deflate(head) {
                guard let inflater = WebSocketInflater(parameters) else { throw WebSocketError.unavailable("zlib could not start inflating") }
                assembler.inflater = inflater
                decoder.allowedReservedBits = 0x40
                deflater = WebSocketDeflater(parameters)
            } else {
                task.shared.withLock { $0.sendsUncompressed = true }
            }
            decoder.append(Array(reply[length...]))
            task.didOpen(response, subprotocol: subprotocol)
            return nil
        }
    }

    private func waitDuringHandshake(_ stream: any WebSocketByteStream, events: Int16, deadline: Date) throws {
        if task.hasEnded { throw WebSocketError.cancelled }
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw WebSocketError.timedOut("no WebSocket handshake within \(task.options.handshakeTimeout) s") }
        wait(stream, events: events, timeout: remaining)
        if task.hasEnded { throw WebSocketError.cancelled }
    }

    // MARK: - Open

    private func exchange(_ stream: any WebSocketByteStream) throws {
        let now = Date()
        lastReceived = now
        lastWriteProgress = now
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if task.hasEnded {
                // Cancelled (or ended by a caller): a close frame if one can go at once, no waiting.
                if !closeSent, writes.allSatisfy({ $0.offset == 0 }) {
                    let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: WebSocketMessageAssembler.closePayload(.goingAway, "")))
                    _ = try? bytes.withUnsafeBytes { (raw) throws(WebSocketError) -> Int in try stream.send(raw) }
                }
                failWrites(task.end.map(Self.error(of:)) ?? .closed)
                return
            }
            takeRequests()
            if try flush(stream) { return }
            let canRead = closeSent || task.hasRoom
            if canRead, try read(stream, into: &buffer) { return }
            let timeout = try checkTimers()
            var events: Int16 = 0
            if closeSent || task.hasRoom { events |= Int16(POLLIN) }
            if !writes.isEmpty { events |= Int16(POLLOUT) }
            wait(stream, events: events, timeout: timeout)
        }
    }

    /// Moves what callers sent and asked into the write queue.
    private func takeRequests() {
        let (outgoing, close) = task.shared.withLock { state in
            let taken = (state.outgoing, state.closeRequest)
            state.outgoing = []
            return taken
        }
        for frame in outgoing {
            if closeSent {
                task.complete(frame.completion, WebSocketError.closed)
                task.shared.withLock { $0.queuedBytes -= frame.queued }
            } else {
                writes.append(Write(bytes: frame.frame.map(encode) ?? frame.bytes, completion: frame.completion, kind: .data, queued: frame.queued))
            }
        }
        if let close, !closeSent {
            queueClose(close.code, close.reason)
        }
    }

    /// A message's frame as it goes: compressed (RSV1) where permessage-deflate is in use, masked.
    private func encode(_ frame: WebSocketFrame) -> [UInt8] {
        if let deflater, !frame.payload.isEmpty, let compressed = deflater.compress(frame.payload) {
            return WebSocketFrameEncoder.encode(WebSocketFrame(fin: frame.fin, reserved: 0x40, opcode: frame.opcode, payload: compressed))
        }
        return WebSocketFrameEncoder.encode(frame)
    }

    private func queueClose(_ code: WebSocketCloseCode, _ reason: String) {
        closeSent = true
        closeDeadline = Date().addingTimeInterval(task.options.closeTimeout)
        let frame = WebSocketFrame(opcode: .close, payload: WebSocketMessageAssembler.closePayload(code, reason))
        writes.append(Write(bytes: WebSocketFrameEncoder.encode(frame), kind: .close))
    }

    /// Queues a control frame ahead of the data not yet started (§5.4: between fragments or
    /// frames, never inside one). A pong replaces a pong not yet started: a ping flood costs
    /// one pong's memory (§5.5.3 allows answering only the latest).
    private func queueControl(_ opcode: WebSocketOpcode, _ payload: [UInt8], kind: Kind) {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload))
        let firstUnstarted = writes.first?.offset ?? 0 > 0 ? 1 : 0
        if kind == .pong, let index = writes.indices.dropFirst(firstUnstarted).first(where: { writes[$0].kind == .pong }) {
            writes[index].bytes = bytes
            return
        }
        writes.insert(Write(bytes: bytes, kind: kind), at: min(firstUnstarted, writes.count))
    }

    /// Writes what the socket takes. Returns `true` when the socket has ended (our answer to the
    /// peer's close is out).
    private func flush(_ stream: any WebSocketByteStream) throws -> Bool {
        while !writes.isEmpty {
            let offset = writes[0].offset
            let sent = try writes[0].bytes.withUnsafeBytes { (bytes) throws(WebSocketError) -> Int in
                try stream.send(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            guard sent > 0 else { return false }
            lastWriteProgress = Date()
            writes[0].offset += sent
            guard writes[0].offset == writes[0].bytes.count else { continue }
            let done = writes.removeFirst()
            if done.kind == .data {
                task.shared.withLock { $0.queuedBytes -= done.queued }
                task.complete(done.completion, nil)
            }
            if done.kind == .close, let (code, reason) = peerClose {
                task.finish(.closed(code: code, reason: reason, byPeer: true))
                return true
            }
        }
        return false
    }

    /// Reads until the socket has nothing more or the consumer's buffer is full, handling each
    /// frame. Returns `true` when the socket has ended.
    private func read(_ stream: any WebSocketByteStream, into buffer: inout [UInt8]) throws -> Bool {
        while true {
            // Frames already buffered first: after a pause for room, they are next in line.
            while closeSent || task.hasRoom, let frame = try decoder.next() {
                lastReceived = Date()
                if try handle(frame, stream) { return true }
            }
            guard closeSent || task.hasRoom else { return false }
            let count = try buffer.withUnsafeMutableBytes { (bytes) throws(WebSocketError) -> Int? in try stream.receive(into: bytes) }
            guard let count else { return false }
            guard count > 0 else { throw WebSocketError.connectionLost("the peer closed the connection without a close frame") }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    private func handle(_ frame: WebSocketFrame, _ stream: any WebSocketByteStream) throws -> Bool {
        guard let event = try assembler.take(frame) else { return false }
        switch event {
        case let .message(message):
            // After our close the peer may still send what it had (its answers to our last
            // messages): delivered while there is room, dropped beyond it, since the reading
            // must go on to find the peer's close.
            if !closeSent || task.hasRoom { task.deliver(message) }
        case let .ping(payload):
            if !closeSent { queueControl(.pong, payload, kind: .pong) }
        case .pong:
            pingSentAt = nil
        case let .close(code, reason):
            if closeSent {
                // The answer to ours: the closing handshake is complete.
                task.finish(.closed(code: code, reason: reason, byPeer: false))
                return true
            }
            // The peer's: answered with its code (1005 means it sent none, so ours has none either).
            closeSent = true
            peerClose = (code, reason)
            failWrites(.closed, keepingStarted: true)
            let payload = code == .noStatusReceived ? [] : WebSocketMessageAssembler.closePayload(code, "")
            writes.append(Write(bytes: WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: payload)), kind: .close))
            closeDeadline = Date().addingTimeInterval(task.options.closeTimeout)
            return try flush(stream)
        }
        return false
    }

    /// Checks the deadlines; returns how long `poll` may wait.
    private func checkTimers() throws -> TimeInterval {
        let now = Date()
        var wait: TimeInterval = 3600
        if let closeDeadline {
            guard now < closeDeadline else {
                if let (code, reason) = peerClose {
                    // Our answer could not be written in time; the peer asked to close anyway.
                    task.finish(.closed(code: code, reason: reason, byPeer: true))
                    throw WebSocketError.closed
                }
                throw WebSocketError.timedOut("no close frame from the peer within \(task.options.closeTimeout) s")
            }
            wait = min(wait, closeDeadline.timeIntervalSince(now))
        }
        if !writes.isEmpty {
            let stalled = lastWriteProgress.addingTimeInterval(task.options.sendTimeout)
            guard now < stalled else { throw WebSocketError.sendStalled }
            wait = min(wait, stalled.timeIntervalSince(now))
        }
        if let interval = task.options.pingInterval, interval > 0, !closeSent {
            if let pingSentAt {
                let due = pingSentAt.addingTimeInterval(task.options.pongTimeout)
                guard now < due else { throw WebSocketError.pongTimeout }
                wait = min(wait, due.timeIntervalSince(now))
            } else {
                let due = lastReceived.addingTimeInterval(interval)
                if now >= due {
                    pingSentAt = now
                    queueControl(.ping, Array("courier".utf8), kind: .ping)
                    wait = 0
                } else {
                    wait = min(wait, due.timeIntervalSince(now))
                }
            }
        }
        return max(0, wait)
    }

    /// Waits in `poll` for `events` on the socket or a wake, at most `timeout` seconds.
    private func wait(_ stream: any WebSocketByteStream, events: Int16, timeout: TimeInterval) {
        var fds = [pollfd(fd: stream.socket, events: events, revents: 0), pollfd(fd: task.wakeup.readEnd, events: Int16(POLLIN), revents: 0)]
        let milliseconds = Int32(min(max(0, timeout) * 1000, 3_600_000).rounded(.up))
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        if fds[1].revents != 0 { task.wakeup.drain() }
    }

    // MARK: - Failing

    /// Ends the socket with `error`: a close frame with its code first when one is due and can
    /// go without waiting (a protocol error, a message too big, invalid UTF-8).
    private func fail(_ error: any Error) {
        let failure = error as? WebSocketError ?? .connectionLost("\(error)")
        if case .closed = failure {
            failWrites(.closed)
            return
        }
        if let stream, let code = failure.closeCode, !closeSent, writes.allSatisfy({ $0.offset == 0 }) {
            let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: WebSocketMessageAssembler.closePayload(code, "")))
            _ = try? bytes.withUnsafeBytes { (raw) throws(WebSocketError) -> Int in try stream.send(raw) }
        }
        task.finish(.failed(failure))
        failWrites(task.end.map(Self.error(of:)) ?? failure)
    }

    /// Fails the data frames in the queue (all, or only those not started).
    private func failWrites(_ error: WebSocketError, keepingStarted: Bool = false) {
        var kept: [Write] = []
        for (index, write) in writes.enumerated() {
            if write.kind != .data || (keepingStarted && index == 0 && write.offset > 0) {
                kept.append(write)
                continue
            }
            task.shared.withLock { $0.queuedBytes -= write.queued }
            task.complete(write.completion, error)
        }
        writes = keepingStarted ? kept : []
    }

    static func error(of end: WebSocketEnd) -> WebSocketError {
        switch end {
        case .closed: return .closed
        case let .failed(error): return error
        }
    }
}
