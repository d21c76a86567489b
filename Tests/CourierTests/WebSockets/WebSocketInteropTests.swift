@testable import Courier
import Foundation
import XCTest

/// Courier's WebSocket client against Python's `websockets` and Node's `ws` on loopback, in every
/// calling convention. On the URLSession engine the socket is carried by the curl engine (see
/// ``Network/webSocket(_:options:callbackQueue:onOpen:onMessage:onEnd:)``), so every test runs on both.
final class WebSocketInteropTests: XCTestCase {
    override class func tearDown() {
        TLSFixture.tearDownShared()
        super.tearDown()
    }

    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-ws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    /// Runs `body` against each peer, started for it.
    private func eachPeer(_ body: (WebSocketPeer) throws -> Void) throws {
        for kind in WebSocketPeer.Kind.allCases {
            let peer = try WebSocketPeer(kind, in: folder)
            defer { peer.stop() }
            try body(peer)
        }
    }

    private func closedCode(_ end: WebSocketEnd?) -> (UInt16, String, Bool)? {
        guard case let .closed(code, reason, byPeer)? = end else { return nil }
        return (code.rawValue, reason, byPeer)
    }

    func testBlockingEchoOfTextAndBinaryMessagesOfEverySize() throws {
        try eachPeer { peer in
            let socket = makeNetwork().webSocket(peer.url("/echo"))
            let sizes = [0, 1, 125, 126, 65535, 65536, 1 << 20]
            for size in sizes {
                let text = String(repeating: "é", count: size / 2)
                try socket.sendSynchronously(.text(text))
                XCTAssertEqual(try socket.receive(timeout: 10), .text(text), "\(peer.kind) text \(size)")
                let binary = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) })
                try socket.sendSynchronously(.binary(binary))
                XCTAssertEqual(try socket.receive(timeout: 10), .binary(binary), "\(peer.kind) binary \(size)")
            }
            socket.close(reason: "done")
            XCTAssertNil(try socket.receive(timeout: 10))
            let end = closedCode(socket.end)
            XCTAssertEqual(end?.0, 1000, "\(String(describing: socket.end))")
            XCTAssertEqual(end?.2, false)
        }
    }

    /// permessage-deflate (RFC 7692) with servers that accept it: offered by default, accepted,
    /// and every message of every size comes back through both directions' compression (the
    /// server decompresses ours, we decompress its), context kept across messages.
    func testCompressedEchoWithPeersThatAcceptPermessageDeflate() throws {
        for kind in WebSocketPeer.Kind.allCases {
            let peer = try WebSocketPeer(kind, in: folder, compression: true)
            defer { peer.stop() }
            let socket = makeNetwork().webSocket(peer.url("/echo"))
            for size in [0, 1, 125, 126, 65536, 1 << 20] {
                let text = String(repeating: "compressible é ", count: size / 16)
                try socket.sendSynchronously(.text(text))
                XCTAssertEqual(try socket.receive(timeout: 20), .text(text), "\(kind) text \(size)")
                let binary = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) })
                try socket.sendSynchronously(.binary(binary))
                XCTAssertEqual(try socket.receive(timeout: 20), .binary(binary), "\(kind) binary \(size)")
            }
            let extensions = socket.handshakeResponse?.headers["Sec-WebSocket-Extensions"] ?? ""
            XCTAssertTrue(extensions.hasPrefix("permessage-deflate"), "\(kind): \(extensions)")
            socket.close()
            XCTAssertNil(try socket.receive(timeout: 10))
            XCTAssertEqual(closedCode(socket.end)?.0, 1000, "\(kind): \(String(describing: socket.end))")

            // Not offered: the same server sends uncompressed.
            let plain = makeNetwork().webSocket(peer.url("/echo"), options: WebSocketOptions(compression: false))
            try plain.sendSynchronously(.text("plain"))
            XCTAssertEqual(try plain.receive(timeout: 10), .text("plain"))
            XCTAssertNil(plain.handshakeResponse?.headers["Sec-WebSocket-Extensions"], "\(kind)")
            plain.cancel()
        }
    }

    func testSixteenMebibyteMessages() throws {
        try eachPeer { peer in
            let socket = makeNetwork().webSocket(peer.url("/echo"))
            let big = Data((0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try socket.sendSynchronously(.binary(big))
            XCTAssertEqual(try socket.receive(timeout: 60), .binary(big))
            socket.cancel()
        }
    }

    func testCallbacksEchoInOrderAndEndExactlyOnce() throws {
        try eachPeer { peer in
            let received = Locked<[WebSocketMessage]>([])
            let ends = Locked<[WebSocketEnd]>([])
            let opened = expectation(description: "open")
            let ended = expectation(description: "end")
            let queue = DispatchQueue(label: "test.websocket")
            let socket = makeNetwork().webSocket(peer.url("/echo"), options: WebSocketOptions(subprotocols: ["chat"]), callbackQueue: queue,
                                                 onOpen: { response in
                                                     XCTAssertEqual(response.statusCode, 101)
                                                     opened.fulfill()
                                                 },
                                                 onMessage: { message, socket in
                                                     dispatchPrecondition(condition: .onQueue(queue))
                                                     let count = received.withLock { $0.append(message); return $0.count }
                                                     if count == 50 { socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "enough") }
                                                 },
                                                 onEnd: { end in
                                                     ends.withLock { $0.append(end) }
                                                     ended.fulfill()
                                                 })
            let sent = expectation(description: "sent")
            sent.expectedFulfillmentCount = 50
            for index in 0..<50 {
                socket.send(.text("message \(index)")) { error in
                    XCTAssertNil(error)
                    sent.fulfill()
                }
            }
            wait(for: [opened, sent, ended], timeout: 20)
            XCTAssertEqual(socket.subprotocol, "chat")
            XCTAssertEqual(received.withLock { $0 }, (0..<50).map { .text("message \($0)") })
            // Racing ends after the end change nothing: still one end event.
            socket.close()
            socket.cancel()
            queue.sync {}
            XCTAssertEqual(ends.withLock { $0.count }, 1)
            XCTAssertEqual(closedCode(ends.withLock { $0.first })?.0, 4000)
            // A send after the end fails with .closed, on the callback queue.
            let refused = expectation(description: "refused")
            socket.send(.text("late")) { error in
                guard case .closed? = error as? WebSocketError else { return XCTFail("\(String(describing: error))") }
                refused.fulfill()
            }
            wait(for: [refused], timeout: 5)
        }
    }

    func testAsyncMessagesAndTaskCancellationClosesTheSocket() throws {
        try eachPeer { peer in
            let socket = makeNetwork().webSocket(peer.url("/echo"))
            let outcome = Locked<[String]>([])
            let done = expectation(description: "async")
            Task {
                defer { done.fulfill() }
                do {
                    try await socket.send(.text("one"))
                    try await socket.send(.binary(Data([1, 2, 3])))
                    var iterator = socket.messages.makeAsyncIterator()
                    let first = try await iterator.next()
                    let second = try await iterator.next()
                    outcome.withLock { $0.append("\(String(describing: first)) \(String(describing: second))") }
                    // A Task waiting for a message that never comes, cancelled: the socket ends, cancelled.
                    let waiting = Task { () -> (any Error)? in
                        do {
                            for try await _ in socket.messages {}
                            return nil
                        } catch { return error }
                    }
                    waiting.cancel()
                    let error = await waiting.value
                    outcome.withLock { $0.append("\(String(describing: error))") }
                } catch {
                    outcome.withLock { $0.append("failed: \(error)") }
                }
            }
            wait(for: [done], timeout: 20)
            XCTAssertEqual(outcome.withLock { $0 }, [
                "Optional(Courier.WebSocketMessage.text(\"one\")) Optional(Courier.WebSocketMessage.binary(3 bytes))",
                "Optional(The WebSocket was cancelled.)",
            ], "\(peer.kind)")
            guard case .failed(.cancelled)? = socket.end else { return XCTFail("\(peer.kind): \(String(describing: socket.end))") }
        }
    }

    func testThePeersCloseEndsTheSocketWithItsCode() throws {
        try eachPeer { peer in
            let socket = makeNetwork().webSocket(peer.url("/close?code=4321"))
            XCTAssertNil(try socket.receive(timeout: 10))
            let end = closedCode(socket.end)
            XCTAssertEqual(end?.0, 4321, "\(String(describing: socket.end))")
            XCTAssertEqual(end?.1, "bye")
            XCTAssertEqual(end?.2, true)
        }
    }

    func testTheHandshakeCarriesTheNetworksHeadersAndTheOptions() throws {
        try eachPeer { peer in
            let network = makeNetwork()
            network.defaults.headers = ["X-Default": "from the network"]
            let socket = network.webSocket(peer.url("/headers"), options: WebSocketOptions(headers: [("Authorization", "Bearer t0k3n")]))
            guard case let .text(json)? = try socket.receive(timeout: 10) else { return XCTFail("no headers") }
            let headers = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
            XCTAssertEqual(headers["x-default"], "from the network")
            XCTAssertEqual(headers["authorization"], "Bearer t0k3n")
            XCTAssertTrue(headers["user-agent"]?.hasPrefix("Courier/") ?? false, "\(headers)")
            XCTAssertEqual(headers["sec-websocket-version"], "13")
            socket.cancel()
        }
    }

    func testAConsumerThatDoesNotKeepUpStopsTheReading() throws {
        try eachPeer { peer in
            let options = WebSocketOptions(bufferedMessages: 4)
            let socket = makeNetwork().webSocket(peer.url("/burst?count=300&size=65536"), options: options)
            // Taken slowly, one at a time: never more than the bound waits, and nothing is lost.
            for index in 0..<300 {
                guard case let .binary(data)? = try socket.receive(timeout: 20) else { return XCTFail("message \(index)") }
                XCTAssertEqual(data.count, 65536)
                XCTAssertEqual(data.first, UInt8(index % 256))
                XCTAssertLessThanOrEqual(socket.shared.withLock { $0.mostBuffered }, 4)
            }
            XCTAssertLessThanOrEqual(socket.shared.withLock { $0.mostBuffered }, 4)
            socket.cancel()
        }
    }

    func testWSSThroughLibcurlsTLSWithTheNetworksOptions() throws {
        let certificates = try tlsCertificates
        let peer = try WebSocketPeer(.python, in: folder, certificate: certificates.serverCertificate, key: certificates.serverKey)
        defer { peer.stop() }
        // Trusted through the network's TLSOptions (the curl engine's).
        let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.authority))
        let socket = network.webSocket(peer.url("/echo"))
        try socket.sendSynchronously(.text("over TLS"))
        XCTAssertEqual(try socket.receive(timeout: 10), .text("over TLS"))
        socket.close()
        XCTAssertNil(try socket.receive(timeout: 10))
        // Without them the certificate is untrusted: the TLS error a request gets.
        let untrusted = makeNetwork().webSocket(peer.url("/echo"))
        XCTAssertThrowsError(try untrusted.receive(timeout: 10)) { error in
            guard case .connectionFailed(.tls(.untrustedCertificate, _))? = error as? WebSocketError else { return XCTFail("\(error)") }
        }
    }
}
