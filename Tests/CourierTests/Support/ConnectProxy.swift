#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest

/// A tunnelling HTTP proxy on 127.0.0.1 for https-through-a-proxy tests: it reads a `CONNECT`
/// request head, records its request line, and either opens the tunnel (connects to the target,
/// answers `200 Connection established` with an ``extraHeader``, then relays bytes both ways
/// until either side closes) or refuses it with a `407`, a `Proxy-Authenticate` header and a
/// body. Only loopback targets are dialled.
///
/// POSIX sockets and Foundation `Thread`s like ``TestServer`` (one accept thread, one thread per
/// connection that relays with `poll`). ``stop()`` shuts every socket down and waits for the
/// threads to end; the tests call it in a teardown block.
final class ConnectProxy: @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`, an NSCondition also signalled when a
    // thread ends; the sockets are TestServerSocket, safe to close from another thread.

    enum Mode: Sendable {
        /// Opens the tunnel.
        case tunnel
        /// Refuses every `CONNECT` with `407 Proxy Authentication Required`.
        case refuse
    }

    /// The header the proxy adds to its `200 Connection established`, which must never reach the caller.
    static let extraHeader = (name: "X-Test-Proxy", value: "tunnel-open")
    /// The body of the `407` refusal.
    static let refusalBody = "proxy credentials required\n"

    let port: Int
    private let mode: Mode
    private let listener: TestServerSocket
    private let state = NSCondition()
    private var stopped = false
    private var liveThreads = 0
    private var open: [ObjectIdentifier: TestServerSocket] = [:]
    private var requestLines: [String] = []
    private var heads: [String] = []

    init(mode: Mode = .tunnel) throws {
        self.mode = mode
        TestServerSocket.ignoreSIGPIPEOnce()
        let fd = try TestServerSocket.makeBoundSocket()
        listener = TestServerSocket(fd: fd)
        do {
            port = try TestServerSocket.localPort(fd)
            guard listen(fd, SOMAXCONN) == 0 else { throw TestServerError("listen") }
        } catch {
            listener.close()
            throw error
        }
        liveThreads = 1
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "ConnectProxy:\(port) accept"
        thread.start()
    }

    /// The request lines of the `CONNECT`s received, in order (`CONNECT 127.0.0.1:4443 HTTP/1.1`).
    var connectRequests: [String] {
        state.lock()
        defer { state.unlock() }
        return requestLines
    }

    /// The whole heads of the `CONNECT`s received (request line and fields), in order.
    var connectHeads: [String] {
        state.lock()
        defer { state.unlock() }
        return heads
    }

    /// Stops accepting, shuts every socket down and waits (at most `timeout` seconds) for the
    /// threads to end. Idempotent.
    func stop(timeout: TimeInterval = 5) {
        state.lock()
        let sockets = stopped ? [] : Array(open.values)
        stopped = true
        state.unlock()
        listener.close()
        for socket in sockets { socket.close() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock()
        while liveThreads > 0, state.wait(until: deadline) {}
        state.unlock()
    }

    deinit { stop() }

    // MARK: - Threads

    private func acceptLoop() {
        defer { threadEnded() }
        while true {
            // poll() with a timeout as well as shutdown(), as TestServer does: shutdown wakes a
            // blocked accept on Linux, not everywhere.
            let accepted: Int32? = listener.withFD { fd in
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                return poll(&pfd, 1, 200) > 0 ? accept(fd, nil, nil) : -1
            }
            guard let accepted else { return }   // the listener was closed by stop()
            guard accepted >= 0 else { continue }
            TestServerSocket.configureAccepted(accepted)
            let client = TestServerSocket(fd: accepted)
            guard track(client) else { return }
            let thread = Thread { [self] in serve(client) }
            thread.name = "ConnectProxy:\(port) connection"
            thread.start()
        }
    }

    /// Registers an open socket (and, for a client, its thread); false once stopped.
    private func track(_ socket: TestServerSocket, startsThread: Bool = true) -> Bool {
        state.lock()
        defer { state.unlock() }
        guard !stopped else {
            socket.close()
            return false
        }
        open[ObjectIdentifier(socket)] = socket
        if startsThread { liveThreads += 1 }
        return true
    }

    private func forget(_ socket: TestServerSocket) {
        socket.close()
        state.lock()
        open[ObjectIdentifier(socket)] = nil
        state.unlock()
    }

    private func threadEnded() {
        state.lock()
        liveThreads -= 1
        state.broadcast()
        state.unlock()
    }

    private func serve(_ client: TestServerSocket) {
        defer {
            forget(client)
            threadEnded()
        }
        guard let (head, rest) = readHead(client) else { return }
        let requestLine = head.split(separator: "\r\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        state.lock()
        requestLines.append(requestLine)
        heads.append(head)
        state.unlock()
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let target = Self.loopbackPort(of: String(parts[1])) else {
            _ = client.sendAll(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        if case .refuse = mode {
            let body = Data(Self.refusalBody.utf8)
            let head = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"courier-test\"\r\n"
                + "Content-Type: text/plain\r\nContent-Length: \(body.count)\r\n\r\n"
            _ = client.sendAll(Data(head.utf8) + body)
            client.lingeringClose()
            return
        }
        guard let upstream = connectToLoopback(port: target) else {
            _ = client.sendAll(Data("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        defer { forget(upstream) }
        let established = "HTTP/1.1 200 Connection established\r\n\(Self.extraHeader.name): \(Self.extraHeader.value)\r\n\r\n"
        guard client.sendAll(Data(established.utf8)), upstream.sendAll(rest) else { return }
        relay(client, upstream)
    }

    /// Copies bytes both ways until either side closes (or stop() shuts them down).
    private func relay(_ first: TestServerSocket, _ second: TestServerSocket) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let ready: (Bool, Bool)? = first.withFD { a in
                second.withFD { b -> (Bool, Bool) in
                    var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
                    guard poll(&fds, 2, 200) > 0 else { return (false, false) }
                    return (fds[0].revents != 0, fds[1].revents != 0)
                } ?? nil
            } ?? nil
            guard let ready else { return }   // a socket was closed by stop()
            for (from, to, isReady) in [(first, second, ready.0), (second, first, ready.1)] where isReady {
                let count = from.receive(into: &buffer)
                guard count > 0, to.sendAll(Data(buffer[0..<count])) else { return }
            }
        }
    }

    /// The request head (up to the empty line, as text) and any bytes read past it.
    private func readHead(_ socket: TestServerSocket) -> (String, Data)? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Data("\r\n\r\n".utf8)
        while received.count < 16 * 1024 {
            if let range = received.range(of: end) {
                return (String(decoding: received[..<range.lowerBound], as: UTF8.self), Data(received[range.upperBound...]))
            }
            let count = socket.receive(into: &buffer)
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
        return nil
    }

    /// The port of a `127.0.0.1:PORT` (or `localhost:PORT`) authority; nil for any other host.
    private static func loopbackPort(of authority: String) -> Int? {
        guard let colon = authority.lastIndex(of: ":"), ["127.0.0.1", "localhost"].contains(authority[..<colon]) else { return nil }
        return Int(authority[authority.index(after: colon)...])
    }

    private func connectToLoopback(port: Int) -> TestServerSocket? {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        let upstream = TestServerSocket(fd: fd)
        guard track(upstream, startsThread: false) else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        // Through withFD, so that stop() closing the socket meanwhile cannot free the number under us.
        let connected = upstream.withFD { fd -> Int32 in
            TestServerSocket.configureAccepted(fd)   // close-on-exec, no Nagle
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else {
            forget(upstream)
            return nil
        }
        return upstream
    }
}

extension XCTestCase {
    /// A ``ConnectProxy`` stopped when the test ends.
    func makeConnectProxy(_ mode: ConnectProxy.Mode = .tunnel) throws -> ConnectProxy {
        let proxy = try ConnectProxy(mode: mode)
        addTeardownBlock { proxy.stop() }
        return proxy
    }
}
