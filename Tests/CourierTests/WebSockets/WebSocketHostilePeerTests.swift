@testable import Courier
import Foundation
import TestSupport
import XCTest

/// Peers that break the protocol or stop cooperating, played by the loopback test server writing
/// raw bytes after its own `101`: each ends the socket with a typed error in bounded time, with
/// exactly one end event. Runs on both engines (a URLSession network's socket is the curl engine's).
final class WebSocketHostilePeerTests: XCTestCase {
    private var server: TestServer!
    private let release = Gate()

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        release.open()
        server.stop()
        super.tearDown()
    }

    private func wsURL(_ path: String) -> URL { URL(string: "ws://127.0.0.1:\(server.port)\(path)")! }

    /// A valid `101` for `request` (with `extensions` as its `Sec-WebSocket-Extensions`), then
    /// `bytes`; with `hold`, the connection stays open until the test ends.
    private static func upgrade(_ request: ServerRequest, _ writer: ResponseWriter, extensions: String? = nil, then bytes: [UInt8] = [],
                                hold release: Gate? = nil) {
        let accept = WebSocketHandshake.accept(for: request.header("Sec-WebSocket-Key") ?? "")
        var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)]
        if let extensions { headers.append(("Sec-WebSocket-Extensions", extensions)) }
        writer.writeHead(status: 101, headers: headers)
        if !bytes.isEmpty { writer.write(Data(bytes)) }
        _ = release?.wait(timeout: 30)
    }

    private static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), maskKey: nil)
    }

    /// Opens a socket to `path`, waits for its end, and checks there was exactly one.
    private func end(of path: String, options: WebSocketOptions = WebSocketOptions(), within seconds: TimeInterval = 10,
                     file: StaticString = #filePath, line: UInt = #line) -> WebSocketEnd? {
        let ends = Locked<[WebSocketEnd]>([])
        let ended = expectation(description: "end")
        let queue = DispatchQueue(label: "test.websocket")
        _ = makeNetwork().webSocket(wsURL(path), options: options, callbackQueue: queue, onMessage: { _, _ in }, onEnd: { end in
            ends.withLock { $0.append(end) }
            ended.fulfill()
        })
        wait(for: [ended], timeout: seconds)
        queue.sync {}
        XCTAssertEqual(ends.withLock { $0.count }, 1, file: file, line: line)
        return ends.withLock { $0.first }
    }

    private func failure(of path: String, options: WebSocketOptions = WebSocketOptions(), within seconds: TimeInterval = 10,
                         file: StaticString = #filePath, line: UInt = #line) -> WebSocketError? {
        guard case let .failed(error)? = end(of: path, options: options, within: seconds, file: file, line: line) else {
            XCTFail("the socket did not fail", file: file, line: line)
            return nil
        }
        return error
    }

    func testA200InsteadOf101IsRejectedWithItsStatus() {
        server.route("/ws") { _, writer in writer.respond(status: 200, text: "hello") }
        guard case .handshakeRejected(200, _)? = failure(of: "/ws") else { return XCTFail() }
    }

    // MARK: - Redirects of the opening handshake (RFC 6455 §4.1)

    /// `/ws` upgrades and sends one text message naming the `Authorization` it was given.
    private func routeUpgradeNamingAuthorization(on server: TestServer, keys: Locked<[String]>) {
        server.route("/ws") { [release] request, writer in
            keys.withLock { $0.append(request.header("Sec-WebSocket-Key") ?? "") }
            let text = "auth=\(request.header("Authorization") ?? "none")"
            Self.upgrade(request, writer, then: Self.frame(.text, Array(text.utf8)), hold: release)
        }
    }

    func testARedirectedHandshakeIsFollowedOnANewConnectionWithANewKey() throws {
        let keys = Locked<[String]>([])
        server.route("/hop") { request, writer in
            keys.withLock { $0.append(request.header("Sec-WebSocket-Key") ?? "") }
            writer.writeHead(status: 307, headers: [("Location", "/ws?from=hop"), ("Content-Length", "0")])
        }
        routeUpgradeNamingAuthorization(on: server, keys: keys)
        let socket = makeNetwork().webSocket(wsURL("/hop"), options: WebSocketOptions(headers: [("Authorization", "Bearer t0k3n")]))
        defer { socket.cancel() }
        guard case let .text(text)? = try socket.receive(timeout: 10) else { return XCTFail("no message: \(String(describing: socket.end))") }
        XCTAssertEqual(text, "auth=Bearer t0k3n", "the same origin keeps the caller's fields")
        XCTAssertEqual(socket.handshakeResponse?.url?.path, "/ws")
        XCTAssertEqual(socket.handshakeResponse?.url?.query, "from=hop")
        let sent = keys.withLock { $0 }
        XCTAssertEqual(sent.count, 2)
        XCTAssertNotEqual(sent.first, sent.last, "a new key for the new connection")
    }

    func testARedirectToAnotherOriginLeavesTheCredentialsBehind() throws {
        let other = try TestServer()
        defer { other.stop() }
        let keys = Locked<[String]>([])
        routeUpgradeNamingAuthorization(on: other, keys: keys)
        server.route("/hop") { _, writer in
            writer.writeHead(status: 302, headers: [("Location", "http://127.0.0.1:\(other.port)/ws"), ("Content-Length", "0")])
        }
        let socket = makeNetwork().webSocket(wsURL("/hop"), options: WebSocketOptions(headers: [("Authorization", "Bearer t0k3n")]))
        defer { socket.cancel() }
        guard case let .text(text)? = try socket.receive(timeout: 10) else { return XCTFail("no message: \(String(describing: socket.end))") }
        XCTAssertEqual(text, "auth=none")
        XCTAssertEqual(socket.handshakeResponse?.url?.scheme, "ws", "an http Location is taken as ws")
        XCTAssertEqual(socket.handshakeResponse?.url?.port, other.port)
    }

    func testRedirectsPastTheLimitFailWithTheLastAnswer() {
        server.route("/loop") { _, writer in
            writer.writeHead(status: 301, headers: [("Location", "/loop"), ("Content-Length", "0")])
        }
        var options = WebSocketOptions()
        options.maximumRedirects = 3
        guard case let .handshakeRejected(status, headers)? = failure(of: "/loop", options: options) else { return XCTFail() }
        XCTAssertEqual(status, 301)
        XCTAssertEqual(headers["Location"], "/loop")
        XCTAssertEqual(server.requestCount, 4, "the first answer and three redirects followed")

        server.resetStatistics()
        options.maximumRedirects = 0
        guard case .handshakeRejected(301, _)? = failure(of: "/loop", options: options) else { return XCTFail() }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testARedirectToASchemeThatCannotCarryASocketIsRefused() {
        server.route("/hop") { _, writer in
            writer.writeHead(status: 302, headers: [("Location", "ftp://127.0.0.1/ws"), ("Content-Length", "0")])
        }
        guard case let .invalidHandshake(detail)? = failure(of: "/hop") else { return XCTFail() }
        XCTAssertTrue(detail.contains("ftp"), detail)
    }

    func testA101WithoutOrWithAWrongAcceptIsInvalid() {
        server.route("/none") { _, writer in
            writer.writeHead(status: 101, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade")])
        }
        server.route("/wrong") { _, writer in
            writer.writeHead(status: 101, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"),
                                                    ("Sec-WebSocket-Accept", WebSocketHandshake.accept(for: "another key"))])
        }
        for path in ["/none", "/wrong"] {
            guard case let .invalidHandshake(detail)? = failure(of: path) else { return XCTFail(path) }
            XCTAssertTrue(detail.contains("Sec-WebSocket-Accept"), detail)
        }
    }

    func testAHandshakeThatNeverCompletesTimesOut() {
        let release = self.release
        server.route("/silent") { _, _ in _ = release.wait(timeout: 30) }
        let started = Date()
        guard case .timedOut? = failure(of: "/silent", options: WebSocketOptions(handshakeTimeout: 0.5)) else { return XCTFail() }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testAFrameAnnouncing2To63BytesIsRefusedAtItsHeader() {
        let release = self.release
        server.route("/huge") { [release] request, writer in
            Self.upgrade(request, writer, then: [0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], hold: release)
        }
        guard case .protocolViolation? = failure(of: "/huge") else { return XCTFail() }
    }

    func testAMessageOverTheLimitFailsWithTheTypedError() {
        let release = self.release
        server.route("/big") { [release] request, writer in Self.upgrade(request, writer, then: Self.frame(.binary, [UInt8](repeating: 1, count: 2000)), hold: release) }
        guard case .messageTooLarge(1000)? = failure(of: "/big", options: WebSocketOptions(maximumMessageSize: 1000)) else { return XCTFail() }
    }

    func testAMaskedFrameFromTheServerIsAProtocolViolation() {
        let release = self.release
        server.route("/masked") { [release] request, writer in
            Self.upgrade(request, writer, then: WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: [0x41]), maskKey: [1, 2, 3, 4]), hold: release)
        }
        guard case .protocolViolation? = failure(of: "/masked") else { return XCTFail() }
    }

    func testInvalidUTF8FailsFastEvenBeforeTheMessagesLastFragment() {
        let release = self.release
        // The invalid byte is in the second of three fragments; the third never comes.
        server.route("/utf8") { [release] request, writer in
            Self.upgrade(request, writer, then: Self.frame(.text, [0xCE, 0xBA], fin: false) + Self.frame(.continuation, [0xE1, 0xBD, 0xFF], fin: false), hold: release)
        }
        guard case .invalidUTF8? = failure(of: "/utf8") else { return XCTFail() }
    }

    func testACloseWithAnInvalidCodeIsAProtocolViolation() {
        let release = self.release
        server.route("/close") { [release] request, writer in Self.upgrade(request, writer, then: Self.frame(.close, [0x03, 0xED]), hold: release) }   // 1005
        guard case .protocolViolation? = failure(of: "/close") else { return XCTFail() }
    }

    // MARK: - permessage-deflate

    func testRSV1WithoutNegotiatedCompressionIsAProtocolViolation() {
        let release = self.release
        // Offered by default, but this server's 101 does not accept it: RSV1 means nothing here.
        server.route("/rsv1") { [release] request, writer in
            XCTAssertEqual(request.header("Sec-WebSocket-Extensions"), "permessage-deflate; client_max_window_bits")
            Self.upgrade(request, writer, then: WebSocketFrameEncoder.encode(WebSocketFrame(reserved: 0x40, opcode: .text, payload: [0x4A, 0x04, 0]),
                                                                             maskKey: nil), hold: release)
        }
        guard case .protocolViolation? = failure(of: "/rsv1") else { return XCTFail() }
    }

    func testADeflateBombFailsAtTheMessageSizeLimit() throws {
        let release = self.release
        // 64 MiB of zeros, compressed to about 64 KiB: it must fail at 1 MiB, not be inflated whole.
        let deflater = try XCTUnwrap(WebSocketDeflater(WebSocketDeflateParameters()))
        let bomb = try XCTUnwrap(deflater.compress([UInt8](repeating: 0, count: 64 << 20)))
        XCTAssertLessThan(bomb.count, 1 << 20)
        server.route("/bomb") { [release] request, writer in
            Self.upgrade(request, writer, extensions: "permessage-deflate",
                         then: WebSocketFrameEncoder.encode(WebSocketFrame(reserved: 0x40, opcode: .binary, payload: bomb), maskKey: nil), hold: release)
        }
        guard case .messageTooLarge(1 << 20)? = failure(of: "/bomb", options: WebSocketOptions(maximumMessageSize: 1 << 20)) else { return XCTFail() }
    }

    func testAServerThatAnswersWithAnExtensionNotOfferedOrBadParametersFailsTheHandshake() {
        let answers = [
            "/other": "x-webkit-deflate-frame",
            "/bits": "permessage-deflate; server_max_window_bits=7",
            "/unknown": "permessage-deflate; foo=1",
            "/twice": "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
            "/two": "permessage-deflate, permessage-deflate",
        ]
        for (path, answer) in answers {
            server.route(path) { request, writer in Self.upgrade(request, writer, extensions: answer) }
            guard case .invalidHandshake? = failure(of: path) else { return XCTFail(path) }
        }
        // Accepted, but not offered (compression off): refused too.
        server.route("/unasked") { request, writer in Self.upgrade(request, writer, extensions: "permessage-deflate") }
        guard case .invalidHandshake? = failure(of: "/unasked", options: WebSocketOptions(compression: false)) else { return XCTFail() }
    }

    func testACompressedMessageFromAServerThatNegotiatedItIsInflated() throws {
        let release = self.release
        let deflater = try XCTUnwrap(WebSocketDeflater(WebSocketDeflateParameters(clientNoContextTakeover: true)))
        let first = try XCTUnwrap(deflater.compress(Array("Hello, deflate".utf8)))
        let second = try XCTUnwrap(deflater.compress(Array("Hello, deflate".utf8)))
        // The second message in 2 fragments: RSV1 on the first frame only.
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(reserved: 0x40, opcode: .text, payload: first), maskKey: nil)
            + WebSocketFrameEncoder.encode(WebSocketFrame(fin: false, reserved: 0x40, opcode: .text, payload: Array(second.prefix(3))), maskKey: nil)
            + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .continuation, payload: Array(second.dropFirst(3))), maskKey: nil)
        server.route("/inflate") { [release] request, writer in
            Self.upgrade(request, writer, extensions: "permessage-deflate; server_no_context_takeover; client_max_window_bits=10",
                         then: bytes, hold: release)
        }
        let socket = makeNetwork().webSocket(wsURL("/inflate"))
        XCTAssertEqual(try socket.receive(timeout: 10), .text("Hello, deflate"))
        XCTAssertEqual(try socket.receive(timeout: 10), .text("Hello, deflate"))
        socket.cancel()
    }

    func testAPingFloodFromAPeerThatDoesNotReadIsAnsweredInBoundedMemory() throws {
        let release = self.release
        let flood = (0..<20_000).flatMap { _ in Self.frame(.ping, [UInt8](repeating: 9, count: 125)) } + Self.frame(.text, Array("done".utf8))
        server.route("/flood") { [release] request, writer in Self.upgrade(request, writer, then: flood, hold: release) }
        let socket = makeNetwork().webSocket(wsURL("/flood"))
        XCTAssertEqual(try socket.receive(timeout: 20), .text("done"))
        socket.cancel()
    }

    func testAPeerThatNeverAnswersTheKeepAlivePingFailsWithPongTimeout() {
        let release = self.release
        server.route("/mute") { [release] request, writer in Self.upgrade(request, writer, hold: release) }
        let started = Date()
        guard case .pongTimeout? = failure(of: "/mute", options: WebSocketOptions(pingInterval: 0.2, pongTimeout: 0.3)) else { return XCTFail() }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testAPeerThatStopsReadingEndsASendWithSendStalled() {
        let release = self.release
        server.route("/deaf") { [release] request, writer in Self.upgrade(request, writer, hold: release) }
        let socket = makeNetwork().webSocket(wsURL("/deaf"), options: WebSocketOptions(sendTimeout: 1))
        let started = Date()
        XCTAssertThrowsError(try socket.sendSynchronously(.binary(Data(count: 64 << 20)))) { error in
            guard case .sendStalled? = error as? WebSocketError else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        guard case .failed(.sendStalled)? = socket.end else { return XCTFail("\(String(describing: socket.end))") }
    }

    func testRacingEndsDeliverExactlyOneEndEvent() {
        server.route("/race") { request, writer in
            Self.upgrade(request, writer, then: Self.frame(.text, Array("hi".utf8)))
            writer.write(Data(Self.frame(.close, [0x03, 0xE8])))
            writer.closeConnection()
        }
        for round in 0..<30 {
            let ends = Locked(0)
            let opened = expectation(description: "open \(round)")
            let queue = DispatchQueue(label: "test.websocket")
            let socket = makeNetwork().webSocket(wsURL("/race"), callbackQueue: queue, onOpen: { _ in opened.fulfill() },
                                                 onMessage: { _, _ in }, onEnd: { _ in ends.withLock { $0 += 1 } })
            wait(for: [opened], timeout: 10)
            // The peer closes while we close, cancel, send and ask again, from several threads at once.
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                switch index {
                case 0: socket.close()
                case 1: socket.cancel()
                case 2: socket.send(.text("x")) { _ in }
                default: socket.close(code: .goingAway)
                }
            }
            let deadline = Date().addingTimeInterval(10)
            while socket.end == nil, Date() < deadline { queue.sync {} }
            queue.sync {}
            XCTAssertNotNil(socket.end)
            XCTAssertEqual(ends.withLock { $0 }, 1, "round \(round)")
        }
    }
}
