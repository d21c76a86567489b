import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `courier demo`'s own HTTP/1.1 server: 127.0.0.1, a port the system picks, inside the process,
/// so the demo needs no network at all. Plain sockets, one thread per connection, connections
/// kept alive between requests. What it answers is ``DemoRoutes``'.
final class DemoServer: Sendable {
    /// The port it listens on.
    let port: Int
    let routes: DemoRoutes

    private struct State {
        var stopped = false
        /// Open connections, to wake them at stop; a connection's thread removes its descriptor
        /// (under the lock) before closing it, so stop never touches a reused descriptor.
        var connections: Set<Int32> = []
        var connectionCount = 0
        var requestCount = 0
    }

    private let listener: Int32
    private let state = Locked(State())
    /// Every thread of the server, so that ``stop()`` returns once all have ended.
    private let threads = DispatchGroup()

    /// Binds and starts listening. `corruptsResumes`: the server flips a byte of every range it
    /// serves, so that the demo's checksum check fails (for its tests).
    init(corruptsResumes: Bool = false) throws(DemoServerError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw DemoServerError("socket: \(String(cString: strerror(errno)))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            _ = posixClose(fd)
            throw DemoServerError("cannot listen on 127.0.0.1: \(reason)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        routes = DemoRoutes(corruptsResumes: corruptsResumes)
        startThread(name: "courier.demo.accept") { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:PORT` and `path`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Connections accepted and requests answered so far.
    var counts: (connections: Int, requests: Int) {
        state.withLock { ($0.connectionCount, $0.requestCount) }
    }

    /// Stops accepting, ends every connection, and waits (up to 5 s) for all threads to end.
    /// - Returns: Whether every thread ended.
    @discardableResult
    func stop() -> Bool {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            // shutdown wakes the threads blocked on these sockets; each thread closes its own.
            _ = shutdown(listener, Int32(SHUT_RDWR))
            for connection in state.connections { _ = shutdown(connection, Int32(SHUT_RDWR)) }
        }
        return threads.wait(timeout: .now() + 5) == .success
    }

    private func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.name = name
        thread.start()
    }

    private func acceptLoop() {
        // This thread is the listener's only user once started: it closes it on the way out.
        defer { _ = posixClose(listener) }
        while !state.withLock({ $0.stopped }) {
            // poll with a timeout as well as shutdown: shutdown wakes a blocked accept on
            // Linux, not everywhere.
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var yes: Int32 = 1
            // Small answers must not wait for Nagle's algorithm and a delayed ACK.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                state.connectionCount += 1
                return true
            }
            guard accepted else {
                _ = posixClose(fd)
                return
            }
            startThread(name: "courier.demo.connection") { [self] in
                serve(DemoConnection(fd: fd))
                state.withLock { _ = $0.connections.remove(fd) }
                _ = posixClose(fd)
            }
        }
    }

    /// Requests one after another on the same connection, until the client closes it, asks
    /// for it to be closed, or sends something that is not HTTP.
    private func serve(_ connection: DemoConnection) {
        var buffer = Data()
        while true {
            let request: DemoHTTP.Request
            do {
                guard let next = try DemoHTTP.takeRequest(from: &buffer) else {
                    guard connection.receive(into: &buffer) else { return }
                    continue
                }
                request = next
            } catch {
                _ = connection.send(DemoHTTP.head(status: 400, reason: "Bad Request", fields: [("Content-Length", "0"), ("Connection", "close")]))
                return
            }
            // The demo's requests have no body; one that comes is read and dropped.
            var bodyLeft = request.bodyLength
            while bodyLeft > 0 {
                if buffer.isEmpty, !connection.receive(into: &buffer) { return }
                let taken = min(bodyLeft, buffer.count)
                buffer.removeFirst(taken)
                bodyLeft -= taken
            }
            state.withLock { $0.requestCount += 1 }
            guard routes.respond(to: request, on: connection), request.keepAlive else { return }
        }
    }
}

/// One accepted socket: reads and writes that retry on `EINTR` and never raise `SIGPIPE`.
struct DemoConnection {
    let fd: Int32

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0   // SO_NOSIGPIPE is set on the socket instead
    #endif

    /// Appends what arrives to `buffer`; `false` at the end of the stream or on an error.
    func receive(into buffer: inout Data) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
    }

    /// Sends all of `bytes`; `false` once the client has gone.
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var next = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            #if canImport(Glibc)
            let count = Glibc.send(fd, next, left, Self.sendFlags)
            #else
            let count = Darwin.send(fd, next, left, Self.sendFlags)
            #endif
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            next += count
            left -= count
        }
        return true
    }

    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { send($0) }
    }

    /// Waits until the client closes the connection (or the server shuts it down), at most
    /// `timeoutMilliseconds`; anything the client sends meanwhile is read and dropped.
    func waitForClose(timeoutMilliseconds: Int32) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        var scratch = Data()
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let count = poll(&ready, 1, Int32((deadline - now) / 1_000_000) + 1)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            if ready.revents & Int16(POLLIN) == 0 { return }   // POLLHUP, POLLERR: gone
            scratch.removeAll(keepingCapacity: true)
            guard receive(into: &scratch) else { return }
        }
    }
}

/// `close(2)`, named apart from the methods that shadow it.
private func posixClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
