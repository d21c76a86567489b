import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listener on 127.0.0.1 whose accept queue is full, so that the kernel drops every further
/// SYN: a connection to it never completes (the client retransmits its SYN until it gives up).
/// A connect timeout tested on loopback, never another address.
package final class FullBacklogListener: @unchecked Sendable {  // descriptors set in init, closed once in close()
    package let port: Int
    private var descriptors: [Int32] = []

    package init() throws {
        TestServerSocket.ignoreSIGPIPEOnce()
        let listener = try TestServerSocket.makeBoundSocket()
        descriptors.append(listener)
        // A backlog of 0 holds one connection that nobody accepts; one filler connection takes it.
        guard listen(listener, 0) == 0 else { throw TestServerError("listen") }
        port = try TestServerSocket.localPort(listener)
        for _ in 0..<2 {
            let filler = socket(AF_INET, TestServerSocket.streamType, 0)
            guard filler >= 0 else { throw TestServerError("socket") }
            descriptors.append(filler)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            // In progress or done: either way the queue fills (a second filler's SYN is dropped too).
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    package var url: URL { URL(string: "http://127.0.0.1:\(port)/never")! }

    package func close() {
        #if canImport(Glibc)
        for fd in descriptors { _ = Glibc.close(fd) }
        #else
        for fd in descriptors { _ = Darwin.close(fd) }
        #endif
        descriptors.removeAll()
    }

    deinit { close() }
}
