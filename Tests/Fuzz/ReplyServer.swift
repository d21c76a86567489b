#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Courier

/// A loopback server that answers every connection with the same bytes: the reply under test.
///
/// One thread, one connection at a time: accept, read the request (head, and a body announced
/// by `Content-Length`), write the reply, close. A request that redirects to itself, or is
/// retried, is answered again with the same bytes. It is also the HTTP proxy of every
/// transfer the fuzzer makes (see ``ReplyFuzzer``), so it answers whatever URL is asked for.
final class ReplyServer: @unchecked Sendable {
    // @unchecked: `listener` and `port` are set once in init; the rest is behind `state`.

    private struct State {
        var reply = Data()
        /// The head of the last request read, as text.
        var lastRequest = ""
        var requests = 0
    }

    let port: UInt16
    private let listener: Int32
    private let state = Locked(State())

    /// Binds 127.0.0.1 on a port the system picks and starts answering.
    init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { fatalError("fuzz server: socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { fatalError("fuzz server: bind/listen: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.name = "fuzz-reply-server"
        thread.start()
    }

    /// What every connection from now on is answered with.
    func setReply(_ reply: Data) {
        state.withLock { $0.reply = reply }
    }

    /// The head of the last request read.
    var lastRequest: String { state.withLock { $0.lastRequest } }

    /// Requests read so far.
    var requestCount: Int { state.withLock { $0.requests } }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            answer(connection)
            close(connection)
        }
    }

    private func answer(_ connection: Int32) {
        // A client that never finishes its request must not stall the next input.
        var wait = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard let head = readRequest(connection) else { return }
        let reply = state.withLock { state -> Data in
            state.lastRequest = head
            state.requests += 1
            return state.reply
        }
        reply.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                // MSG_NOSIGNAL: a client that has gone is an error here, not a SIGPIPE.
                let count = send(connection, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { return }
                sent += count
            }
        }
        // The reply ends with the connection, as a server that closes after answering does.
        shutdown(connection, Int32(SHUT_WR))
    }

    /// Reads a request head and the body its `Content-Length` announces; returns the head.
    private func readRequest(_ connection: Int32) -> String? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var bodyLength = 0
        while true {
            if headEnd == nil, let end = Self.find(terminator, in: received) {
                headEnd = end + terminator.count
                let head = String(decoding: received[..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let headEnd, received.count >= headEnd + bodyLength {
                return String(decoding: received[..<headEnd], as: UTF8.self)
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 || received.count > 1 << 20 { return nil }
            received += buffer[..<count]
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
