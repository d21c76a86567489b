#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A loopback listener that keeps every byte each connection sends, as sent.
///
/// ``TestServer`` parses what it receives, and drops a head it cannot parse: it cannot show that
/// text smuggled into a header reached the wire. This one answers the first request head of a
/// connection with a fixed `200 ok` and `Connection: close`, then records whatever else the
/// client still sends until it closes.
final class RawCaptureServer: @unchecked Sendable {
    let port: Int
    private let listener: TestServerSocket
    // `lock` guards the three vars below.
    private let lock = NSLock()
    private var bytes = Data()
    private var accepted = 0
    private var open: [TestServerSocket] = []
    private let finished = DispatchGroup()

    init() throws {
        TestServerSocket.ignoreSIGPIPEOnce()
        let fd = try TestServerSocket.makeBoundSocket()
        port = try TestServerSocket.localPort(fd)
        guard listen(fd, 16) == 0 else { throw TestServerError("listen") }
        listener = TestServerSocket(fd: fd)
        finished.enter()
        Thread { [self] in acceptLoop() }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/ok")! }

    /// Everything received so far, all connections together.
    var received: Data { lock.withLock { bytes } }
    /// Connections accepted so far.
    var connectionCount: Int { lock.withLock { accepted } }

    /// Stops accepting, shuts the connections down and waits (bounded) for their threads to end.
    func stop() {
        listener.close()
        lock.withLock { open }.forEach { $0.close() }
        _ = finished.wait(timeout: .now() + 5)
    }

    private func acceptLoop() {
        defer { finished.leave() }
        while true {
            let client: Int32? = listener.withFD { fd in
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                return poll(&pfd, 1, 200) > 0 ? accept(fd, nil, nil) : -1
            }
            guard let client else { return }   // closed by stop()
            if client < 0 { continue }
            TestServerSocket.configureAccepted(client)
            let socket = TestServerSocket(fd: client)
            lock.withLock {
                accepted += 1
                open.append(socket)
            }
            finished.enter()
            Thread { [self] in
                serve(socket)
                finished.leave()
            }.start()
        }
    }

    private func serve(_ socket: TestServerSocket) {
        defer { socket.close() }
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        var connectionBytes = Data()
        var answered = false
        while true {
            let count = socket.receive(into: &scratch)
            if count <= 0 { return }
            connectionBytes.append(contentsOf: scratch[0..<count])
            lock.withLock { bytes.append(contentsOf: scratch[0..<count]) }
            if !answered, connectionBytes.range(of: Data("\r\n\r\n".utf8)) != nil {
                answered = true
                let reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                guard socket.sendAll(Data(reply.utf8)) else { return }
            }
        }
    }
}
