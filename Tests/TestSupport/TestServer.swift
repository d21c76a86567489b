#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 for tests that need real sockets.
///
/// Deliberately built on POSIX sockets and Foundation `Thread`s (one accept thread, one thread per
/// connection) with no Swift concurrency at all: tests block Swift-concurrency threads on purpose,
/// and the server must keep serving regardless.
///
/// `TestServer` is a thin façade over `TestServerCore`; the threads retain only the core, so
/// dropping the last `TestServer` reference runs `deinit`, which stops the server.
package final class TestServer: @unchecked Sendable {
    package typealias Handler = @Sendable (ServerRequest, ResponseWriter) throws -> Void

    private let core: TestServerCore
    package let port: Int

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting immediately.
    package init() throws {
        core = try TestServerCore()
        port = core.port
    }

    deinit { core.stop() }

    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// `url("/json?x=1")` → http://127.0.0.1:<port>/json?x=1
    package func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        return URL(string: "http://127.0.0.1:\(port)\(suffix)")!
    }

    /// Registers `handler` for an exact path (the query is ignored when matching); a later
    /// registration for the same path replaces it. Unknown paths get a 404.
    package func route(_ path: String, _ handler: @escaping Handler) {
        core.setRoute(path, handler)
    }

    /// Stops accepting, shuts down every open connection so blocked reads and writes return, and
    /// waits at most `timeout` seconds for the connection threads to exit. Idempotent.
    /// A handler blocked on an unopened Gate keeps its thread alive until the gate times out;
    /// stop() gives up on it after `timeout` (its socket is already shut down).
    package func stop(timeout: TimeInterval = 5) { core.stop(timeout: timeout) }

    /// Streams the `Content-Length` bodies of requests to `path` into new files in `folder`
    /// (see `ServerRequest.bodyFile`) instead of memory, so tests of huge uploads measure only
    /// the client's memory.
    package func spoolBodies(of path: String, into folder: URL) { core.setSpool(path, folder) }

    /// Requests whose head was fully read.
    package var requestCount: Int { core.stats.requestCount }
    /// Most requests in flight at once (head read → handler returned and response flushed).
    package var maxConcurrentRequests: Int { core.stats.maxConcurrent }
    package var currentConcurrentRequests: Int { core.stats.current }
    /// Total accepted connections.
    package var connectionCount: Int { core.stats.connectionCount }
    /// Requests whose body was fully read, in arrival order (the last 10,000).
    package var receivedRequests: [ServerRequest] { core.receivedRequests }
    /// Zeroes the counters and the request log; the concurrency maximum restarts from the
    /// requests in flight right now.
    package func resetStatistics() { core.resetStatistics() }

    /// A port on 127.0.0.1 where nothing listens, for "connection refused" tests. (Bound then
    /// released, so another process could in theory take it; on loopback in tests it does not.)
    package static func unusedPort() -> Int {
        guard let fd = try? TestServerSocket.makeBoundSocket() else { return 1 }
        defer { _ = closeDescriptor(fd) }
        return (try? TestServerSocket.localPort(fd)) ?? 1
    }
}

// MARK: - Core

package struct TestServerError: Error, CustomStringConvertible {
    package let description: String
    package init(_ call: String, _ code: Int32 = errno) {
        description = "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Shared state of a running server; retained by its threads.
final class TestServerCore: @unchecked Sendable {
    struct Stats {
        var requestCount = 0
        var current = 0
        var maxConcurrent = 0
        var connectionCount = 0
    }

    /// Most requests kept in `receivedRequests`.
    static let logCapacity = 10_000
    /// Request heads larger than this get a 431.
    static let maxHeadSize = 64 * 1024
    let port: Int
    private let listener: TestServerSocket
    /// Marks our own threads (in their threadDictionary) so stop() called from a handler does
    /// not wait for the very thread it runs on.
    private let threadKey: String

    // `state` (a lock plus condition) guards everything below. It is never held across a
    // blocking socket call; the condition is signalled when a thread exits.
    private let state = NSCondition()
    private var stopped = false
    private var stopDeadline: Date?
    private var routes: [String: TestServer.Handler] = [:]
    private var spools: [String: URL] = [:]
    private var connections: [ObjectIdentifier: TestServerSocket] = [:]
    private var liveThreads = 0
    private var statsStorage = Stats()
    private var log: [ServerRequest] = []
    private var logStart = 0          // ring buffer start once `log` is full

    init() throws {
        TestServerSocket.ignoreSIGPIPEOnce()
        let fd = try TestServerSocket.makeBoundSocket()
        do {
            port = try TestServerSocket.localPort(fd)
            guard listen(fd, SOMAXCONN) == 0 else { throw TestServerError("listen") }
        } catch {
            _ = closeDescriptor(fd)
            throw error
        }
        listener = TestServerSocket(fd: fd)
        threadKey = "TestServer.\(port).\(UUID().uuidString)"
        liveThreads = 1
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "TestServer:\(port) accept"
        thread.start()
    }

    // MARK: Public-facing state

    func setSpool(_ path: String, _ folder: URL) {
        state.lock()
        spools[path] = folder
        state.unlock()
    }

    private func spoolFolder(for path: String) -> URL? {
        state.lock()
        defer { state.unlock() }
        return spools[path]
    }

    func setRoute(_ path: String, _ handler: @escaping TestServer.Handler) {
        state.lock()
        routes[path] = handler
        state.unlock()
    }

    var stats: Stats {
        state.lock()
        defer { state.unlock() }
        return statsStorage
    }

    var receivedRequests: [ServerRequest] {
        state.lock()
        defer { state.unlock() }
        return Array(log[logStart...] + log[..<logStart])
    }

    func resetStatistics() {
        state.lock()
        let current = statsStorage.current
        statsStorage = Stats(current: current, maxConcurrent: current)
        log = []
        logStart = 0
        state.unlock()
    }

    func stop(timeout: TimeInterval = 5) {
        state.lock()
        let alreadyStopped = stopped
        stopped = true
        // Every call waits for the same deadline, set by the first: a repeated stop() (say
        // tearDown after a test's own stop) returns at once instead of waiting all over again
        // for a handler that is stuck, while a call racing the first still waits with it.
        if stopDeadline == nil { stopDeadline = Date(timeIntervalSinceNow: timeout) }
        let deadline = stopDeadline!
        let open = Array(connections.values)
        state.unlock()
        if !alreadyStopped {
            // shutdown() wakes any thread blocked on these sockets; each is closed once its last
            // user lets go (see TestServerSocket), so a descriptor is never reused under a thread.
            listener.close()
            for socket in open { socket.close() }
        }
        // A handler calling stop() must not wait for its own thread.
        let ownThread = Thread.current.threadDictionary[threadKey] != nil
        let allowed = ownThread ? 1 : 0
        state.lock()
        while liveThreads > allowed {
            if !state.wait(until: deadline) { break }
        }
        state.unlock()
    }

    // MARK: Threads

    private func threadExited() {
        state.lock()
        liveThreads -= 1
        state.broadcast()
        state.unlock()
    }

    private var isStopped: Bool {
        state.lock()
        defer { state.unlock() }
        return stopped
    }

    private func acceptLoop() {
        Thread.current.threadDictionary[threadKey] = true
        defer {
            listener.close()
            threadExited()
        }
        while !isStopped {
            // poll() with a timeout as well as shutdown(): shutdown wakes a blocked accept on
            // Linux, but not everywhere, and the timeout bounds the wait regardless.
            let outcome: (fd: Int32, error: Int32)? = listener.withFD { fd in
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, 200)
                if ready <= 0 { return (-1, EAGAIN) }
                let client = accept(fd, nil, nil)
                return (client, client < 0 ? errno : 0)
            }
            guard let outcome else { return }   // listener closed by stop()
            if outcome.fd < 0 {
                if outcome.error == EMFILE || outcome.error == ENFILE { Thread.sleep(forTimeInterval: 0.01) }
                continue
            }
            TestServerSocket.configureAccepted(outcome.fd)
            let socket = TestServerSocket(fd: outcome.fd)
            state.lock()
            if stopped {
                state.unlock()
                socket.close()
                return
            }
            connections[ObjectIdentifier(socket)] = socket
            statsStorage.connectionCount += 1
            liveThreads += 1
            state.unlock()
            let thread = Thread { [self] in serveConnection(socket) }
            thread.name = "TestServer:\(port) connection"
            thread.start()
        }
    }

    private func serveConnection(_ socket: TestServerSocket) {
        Thread.current.threadDictionary[threadKey] = true
        var lingering = true
        defer {
            if lingering { socket.lingeringClose() } else { socket.close() }
            state.lock()
            connections[ObjectIdentifier(socket)] = nil
            state.unlock()
            threadExited()
        }
        let reader = ByteReader(socket: socket)
        while true {
            let headBytes: [UInt8]
            switch reader.readHead(limit: Self.maxHeadSize) {
            case .closed:
                lingering = false
                return
            case .tooLarge:
                let writer = ResponseWriter(socket: socket, isHeadRequest: false, requestWantsClose: true)
                writer.respond(status: 431, text: "request head exceeds \(Self.maxHeadSize) bytes")
                return
            case .head(let bytes):
                headBytes = bytes
            }
            guard let head = RequestHead(headBytes) else {
                let writer = ResponseWriter(socket: socket, isHeadRequest: false, requestWantsClose: true)
                writer.respond(status: 400, text: "malformed request head")
                return
            }
            beginRequest()
            // The request stops counting as in flight just before its response's last byte goes
            // out, not after: a client that has the whole response may start its next request
            // on another connection before this thread runs again, and must not be counted as
            // overlapping the one it already finished.
            let ending = RequestEnding { [weak self] in self?.endRequest() }
            let keepAlive = handle(head, reader: reader, socket: socket, ending: ending)
            ending.end()
            if !keepAlive { return }
        }
    }

    /// Reads the body, runs the handler; returns whether the connection can be reused.
    private func handle(_ head: RequestHead, reader: ByteReader, socket: TestServerSocket, ending: RequestEnding) -> Bool {
        let probe = ServerRequest(method: head.method, path: head.path, query: head.query,
                                  version: head.version, headers: head.headers, body: Data())
        let chunked = probe.header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        var length = 0
        if !chunked, let raw = probe.header("Content-Length") {
            guard let parsed = Int(raw.trimmingCharacters(in: .whitespaces)), parsed >= 0 else {
                ResponseWriter(socket: socket, isHeadRequest: false, requestWantsClose: true)
                    .respond(status: 400, text: "bad Content-Length")
                return false
            }
            length = parsed
        }
        // Clients that sent `Expect: 100-continue` (libcurl does for larger uploads) wait for
        // this before sending the body, or stall about a second.
        if let expect = probe.header("Expect"), expect.lowercased() == "100-continue", chunked || length > 0 {
            guard socket.sendAll(ResponseWriter.head(status: 100, headers: [])) else { return false }
        }
        let body: [UInt8]?
        var bodyFile: URL?
        if !chunked, let folder = spoolFolder(for: head.path) {
            let file = folder.appendingPathComponent("body-\(UUID().uuidString)")
            body = reader.spool(exactly: length, to: file) ? [] : nil
            bodyFile = file
        } else if chunked {
            body = reader.readChunkedBody()
        } else {
            body = reader.read(exactly: length)
        }
        guard let body else { return false }   // peer went away mid-body

        var request = ServerRequest(method: head.method, path: head.path, query: head.query,
                                    version: head.version, headers: head.headers, body: Data(body))
        request.bodyFile = bodyFile
        record(request)
        let writer = ResponseWriter(socket: socket, isHeadRequest: request.isHead, requestWantsClose: request.wantsClose,
                                    beforeLastBytes: ending.end)
        var failure: Error?
        if let handler = route(for: request.path) {
            do { try handler(request, writer) } catch { failure = error }
        } else {
            writer.respond(status: 404, text: "no route for \(request.path)")
        }
        return writer.complete(handlerError: failure)
    }

    private func route(for path: String) -> TestServer.Handler? {
        state.lock()
        defer { state.unlock() }
        return routes[path]
    }

    private func beginRequest() {
        state.lock()
        statsStorage.requestCount += 1
        statsStorage.current += 1
        statsStorage.maxConcurrent = max(statsStorage.maxConcurrent, statsStorage.current)
        state.unlock()
    }

    private func endRequest() {
        state.lock()
        statsStorage.current -= 1
        state.unlock()
    }

    private func record(_ request: ServerRequest) {
        state.lock()
        if log.count < Self.logCapacity {
            log.append(request)
        } else {
            log[logStart] = request
            logStart = (logStart + 1) % Self.logCapacity
        }
        state.unlock()
    }
}

/// Ends a request's accounting once, whichever comes first: its response's last bytes or the
/// handler's return.
private final class RequestEnding: @unchecked Sendable {   // `lock` guards `ended`
    private let lock = NSLock()
    private var ended = false
    private let action: () -> Void

    init(_ action: @escaping () -> Void) { self.action = action }

    func end() {
        lock.lock()
        let first = !ended
        ended = true
        lock.unlock()
        if first { action() }
    }
}

// MARK: - Request head parsing

private struct RequestHead {
    let method: String
    let path: String
    let query: String?
    let version: String
    let headers: [(name: String, value: String)]

    /// Parses the bytes before CRLFCRLF; nil if malformed.
    init?(_ bytes: [UInt8]) {
        // Split on LF and drop a trailing CR (splitting a String on "\r\n" is unreliable because
        // Swift treats CRLF as one Character).
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line -> String in
            var line = line[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            return String(decoding: line, as: UTF8.self)
        }
        while let first = lines.first, first.isEmpty { lines.removeFirst() }   // stray CRLFs between requests
        guard !lines.isEmpty else { return nil }
        let parts = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return nil }
        method = String(parts[0])
        version = String(parts[2])
        var target = String(parts[1])
        // Absolute-form ("http://host/path") as a proxy-style client might send.
        if let scheme = target.range(of: "://") {
            let afterAuthority = target[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" })
            target = afterAuthority.map { String(target[$0...]) } ?? "/"
            if target.hasPrefix("?") { target = "/" + target }
        }
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
        var fields: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t" {
                // Obsolete line folding: continuation of the previous value.
                guard !fields.isEmpty else { return nil }
                fields[fields.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return nil }
            fields.append((name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        headers = fields
    }
}

// MARK: - Buffered reading

/// Per-connection read buffer; keeps leftover bytes between requests so pipelined and partial
/// data parse correctly. Used by one thread only.
private final class ByteReader {
    enum HeadResult { case head([UInt8]), closed, tooLarge }

    private let socket: TestServerSocket
    private var buffer: [UInt8] = []
    private var position = 0                 // start of unconsumed bytes
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(socket: TestServerSocket) { self.socket = socket }

    private var available: Int { buffer.count - position }

    /// Appends whatever the socket has; false on EOF or error.
    private func fill() -> Bool {
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        } else if position > 64 * 1024 {
            buffer.removeFirst(position)
            position = 0
        }
        let count = socket.receive(into: &scratch)
        guard count > 0 else { return false }
        buffer.append(contentsOf: scratch[0..<count])
        return true
    }

    func readHead(limit: Int) -> HeadResult {
        var scanFrom = position
        while true {
            if available >= 4 {
                var index = max(scanFrom, position)
                let end = buffer.count - 3
                while index < end {
                    if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                        let headEnd = index - position
                        if headEnd > limit { return .tooLarge }
                        let head = Array(buffer[position..<index])
                        position = index + 4
                        return .head(head)
                    }
                    index += 1
                }
                scanFrom = index
                if available > limit { return .tooLarge }
            }
            let before = position
            guard fill() else { return .closed }
            // fill() may compact the buffer; keep the scan offset relative to the data.
            scanFrom = scanFrom - before + position
        }
    }

    func read(exactly count: Int) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            if available == 0, !fill() { return nil }
            let take = min(available, count - result.count)
            result.append(contentsOf: buffer[position..<(position + take)])
            position += take
        }
        return result
    }

    /// Streams exactly `count` body bytes into a new file at `url`, 1 MB at a time; false if the
    /// peer went away or the file cannot be written.
    func spool(exactly count: Int, to url: URL) -> Bool {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: url) else { return false }
        defer { try? handle.close() }
        var remaining = count
        while remaining > 0 {
            guard let piece = read(exactly: min(remaining, 1 << 20)),
                  (try? handle.write(contentsOf: piece)) != nil else { return false }
            remaining -= piece.count
        }
        return true
    }

    /// One CRLF- (or LF-) terminated line without the terminator; nil on EOF or over `limit`.
    private func readLine(limit: Int = 8 * 1024) -> String? {
        var scanned = 0
        while true {
            var index = position + scanned
            while index < buffer.count {
                if buffer[index] == 10 {
                    var line = buffer[position..<index]
                    if line.last == 13 { line = line.dropLast() }
                    position = index + 1
                    return String(decoding: line, as: UTF8.self)
                }
                index += 1
            }
            scanned = available
            if scanned > limit { return nil }
            guard fill() else { return nil }
        }
    }

    /// De-chunks a `Transfer-Encoding: chunked` body, discarding extensions and trailers.
    func readChunkedBody() -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            guard let line = readLine() else { return nil }
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { return nil }
            if size == 0 {
                while true {   // trailer section ends with an empty line
                    guard let trailer = readLine() else { return nil }
                    if trailer.isEmpty { return body }
                }
            }
            guard let chunk = read(exactly: size) else { return nil }
            body.append(contentsOf: chunk)
            guard let terminator = readLine(), terminator.isEmpty else { return nil }
        }
    }
}

// MARK: - Socket

/// A socket descriptor that several threads may use while another closes it.
///
/// `close()` shuts the socket down at once (waking blocked calls) but the descriptor itself is
/// closed only when no call is using it; otherwise a thread could find its number reused by a
/// fresh socket and write into the wrong connection.
package final class TestServerSocket: @unchecked Sendable {
    private let fd: Int32
    // `lock` guards the three vars; held only for bookkeeping, never across a blocking call.
    private let lock = NSLock()
    private var users = 0
    private var closing = false
    private var closed = false

    package init(fd: Int32) { self.fd = fd }

    deinit {
        if !closed { _ = closeDescriptor(fd) }
    }

    /// Runs `body` with the descriptor, or returns nil once the socket is closing.
    package func withFD<T>(_ body: (Int32) -> T) -> T? {
        lock.lock()
        if closing {
            lock.unlock()
            return nil
        }
        users += 1
        lock.unlock()
        defer {
            lock.lock()
            users -= 1
            let closeNow = closing && users == 0 && !closed
            if closeNow { closed = true }
            lock.unlock()
            if closeNow { _ = closeDescriptor(fd) }
        }
        return body(fd)
    }

    /// shutdown(SHUT_RDWR) now, close() as soon as nobody uses the descriptor. Idempotent.
    package func close() {
        lock.lock()
        if closing {
            lock.unlock()
            return
        }
        closing = true
        _ = shutdown(fd, Int32(SHUT_RDWR))   // non-blocking; fine under the lock
        let closeNow = users == 0
        if closeNow { closed = true }
        lock.unlock()
        if closeNow { _ = closeDescriptor(fd) }
    }

    /// Graceful end of a connection: send FIN, then drain what the client still sends (briefly)
    /// before closing, so a final response (e.g. 431 while the client is still sending) is not
    /// destroyed by a reset caused by unread input.
    package func lingeringClose() {
        _ = withFD { fd -> Void in
            _ = shutdown(fd, Int32(SHUT_WR))
            var timeout = timeval(tv_sec: 0, tv_usec: 500_000)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var drained = 0
        let deadline = Date(timeIntervalSinceNow: 2)
        while drained < 4 * 1024 * 1024, Date() < deadline {
            let count = receive(into: &scratch)
            if count <= 0 { break }
            drained += count
        }
        close()
    }

    /// recv() into `buffer`; bytes read, 0 on EOF, -1 on error or when closing.
    package func receive(into buffer: inout [UInt8]) -> Int {
        let capacity = buffer.count
        return buffer.withUnsafeMutableBytes { raw in
            withFD { fd -> Int in
                while true {
                    let count = recv(fd, raw.baseAddress, capacity, 0)
                    if count < 0 && errno == EINTR { continue }
                    return count
                }
            } ?? -1
        }
    }

    /// Sends all of `data`; false if the peer has gone or the socket is closing.
    package func sendAll(_ data: Data) -> Bool {
        if data.isEmpty { return true }
        return data.withUnsafeBytes { raw in
            withFD { fd -> Bool in
                var offset = 0
                while offset < raw.count {
                    let count = send(fd, raw.baseAddress! + offset, raw.count - offset, Self.sendFlags)
                    if count < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += count
                }
                return true
            } ?? false
        }
    }

    // MARK: Setup helpers

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)   // EPIPE instead of SIGPIPE
    package static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let sendFlags: Int32 = 0              // SO_NOSIGPIPE is set per socket instead
    package static let streamType = SOCK_STREAM
    #endif

    /// Belt and braces next to MSG_NOSIGNAL: a write to a dead peer must never kill the test
    /// process. Ignoring SIGPIPE process-wide is harmless in a test runner. A global `let` runs
    /// its initializer exactly once, thread-safely.
    package static func ignoreSIGPIPEOnce() { _ = sigpipeIgnored }

    /// A socket bound to 127.0.0.1 on an ephemeral port, not yet listening.
    package static func makeBoundSocket() throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw TestServerError("socket") }
        // Close-on-exec so child processes (curl via Process) never inherit server sockets,
        // which would keep connections open after we close them.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = TestServerError("bind")
            _ = closeDescriptor(fd)
            throw error
        }
        return fd
    }

    package static func localPort(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw TestServerError("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    package static func configureAccepted(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        // Small responses must not wait ~40 ms on Nagle + delayed ACK.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}

private let sigpipeIgnored: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// The C close(), named apart because `TestServerSocket.close()` shadows it inside the class.
private func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}
