@testable import Courier
import XCTest

/// SHA-1, UTF-8 validation and the opening handshake's request and checks.
final class WebSocketHandshakeTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testSHA1KnownAnswers() {
        XCTAssertEqual(hex(SHA1.digest(Array("".utf8))), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(hex(SHA1.digest(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(hex(SHA1.digest([UInt8](repeating: 0x61, count: 1_000_000))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    func testAcceptOfTheRFCExample() {
        // RFC 6455 §1.3.
        XCTAssertEqual(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testUTF8Validation() {
        XCTAssertTrue(UTF8Validator.isValid(Array("Hello-µ@ßöäüàá-UTF-8!! κόσμε 𝄞".utf8)))
        for invalid: [UInt8] in [[0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                 [0xF5], [0xFF], [0xCE]] {
            XCTAssertFalse(UTF8Validator.isValid(invalid), "\(invalid)")
        }
    }

    func testRequest() throws {
        let handshake = WebSocketHandshake(subprotocols: ["chat", "superchat"], key: "dGhlIHNhbXBsZSBub25jZQ==")
        let request = String(decoding: try handshake.request(for: URL(string: "ws://example.com:8080/chat?room=1")!,
                                                             headers: [("Origin", "http://example.com")]), as: UTF8.self)
        XCTAssertEqual(request, "GET /chat?room=1 HTTP/1.1\r\nHost: example.com:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                       + "Sec-WebSocket-Protocol: chat, superchat\r\nOrigin: http://example.com\r\n\r\n")
        let secure = String(decoding: try handshake.request(for: URL(string: "wss://example.com:443")!, headers: []), as: UTF8.self)
        XCTAssertTrue(secure.hasPrefix("GET / HTTP/1.1\r\nHost: example.com\r\n"), secure)
        XCTAssertThrowsError(try handshake.request(for: URL(string: "ws://a/")!, headers: [("X", "a\r\nInjected: 1")]))
        XCTAssertThrowsError(try handshake.request(for: URL(string: "ws://a/")!, headers: [("Sec-WebSocket-Key", "x")]))
    }

    /// A subprotocol name goes into the head as it is: only an RFC 9110 token may (no empty
    /// name, no separator, space, control or non-ASCII character).
    func testSubprotocolsMustBeTokens() throws {
        let url = URL(string: "ws://a/")!
        for bad in ["", "a b", "a,b", "a;b", "a\"b", "(chat)", "chat/2", "a\r\nX: 1", "a\u{7F}", "chät"] {
            let handshake = WebSocketHandshake(subprotocols: ["chat", bad], key: "dGhlIHNhbXBsZSBub25jZQ==")
            XCTAssertThrowsError(try handshake.request(for: url, headers: []), bad) { error in
                guard case .invalidUse = error as? WebSocketError else { return XCTFail("\(error)") }
            }
        }
        let handshake = WebSocketHandshake(subprotocols: ["chat.v2", "x-!#$%&'*+-.^_`|~"], key: "dGhlIHNhbXBsZSBub25jZQ==")
        let request = String(decoding: try handshake.request(for: url, headers: []), as: UTF8.self)
        XCTAssertTrue(request.contains("Sec-WebSocket-Protocol: chat.v2, x-!#$%&'*+-.^_`|~\r\n"), request)
    }

    func testKeysAreSixteenRandomBytes() {
        let keys = Set((0..<32).map { _ in WebSocketHandshake.randomKey() })
        XCTAssertEqual(keys.count, 32)
        XCTAssertEqual(Data(base64Encoded: keys.first!)?.count, 16)
    }

    private func head(_ text: String) throws -> WebSocketResponseHead {
        try XCTUnwrap(try WebSocketResponseHead.parse(Array(text.utf8))).head
    }

    func testReplyChecks() throws {
        let handshake = WebSocketHandshake(subprotocols: ["chat"], key: "dGhlIHNhbXBsZSBub25jZQ==")
        let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        XCTAssertNil(try handshake.validate(try head(good + "\r\n")))
        XCTAssertEqual(try handshake.validate(try head(good + "Sec-WebSocket-Protocol: chat\r\n\r\n")), "chat")
        func rejects(_ reply: String, line: UInt = #line, _ check: (WebSocketError) -> Bool) {
            XCTAssertThrowsError(try handshake.validate(try head(reply)), line: line) {
                XCTAssertTrue(check($0 as! WebSocketError), "\($0)", line: line)
            }
        }
        func invalid(_ error: WebSocketError) -> Bool { if case .invalidHandshake = error { return true }; return false }
        rejects("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") { if case .handshakeRejected(200, _) = $0 { return true }; return false }
        rejects("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", invalid)
        rejects(good.replacingOccurrences(of: "s3pP", with: "AAAA") + "\r\n", invalid)
        rejects(good + "Sec-WebSocket-Protocol: other\r\n\r\n", invalid)
        rejects(good + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n", invalid)
        rejects(good.replacingOccurrences(of: "Upgrade: websocket", with: "Upgrade: h2c") + "\r\n", invalid)
    }

    func testPermessageDeflateIsOfferedAndItsAnswerRead() throws {
        let handshake = WebSocketHandshake(subprotocols: [], offersDeflate: true, key: "dGhlIHNhbXBsZSBub25jZQ==")
        let request = String(decoding: try handshake.request(for: URL(string: "ws://example.com/chat")!, headers: []), as: UTF8.self)
        XCTAssertTrue(request.contains("\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"), request)
        let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        XCTAssertNil(try handshake.deflate(try head(good + "\r\n")))
        XCTAssertEqual(try handshake.deflate(try head(good + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n")), WebSocketDeflateParameters())
        let all = "Sec-WebSocket-Extensions: PerMessage-Deflate; server_no_context_takeover; client_no_context_takeover; "
            + "server_max_window_bits=10; client_max_window_bits=\"9\"\r\n\r\n"
        XCTAssertEqual(try handshake.deflate(try head(good + all)),
                       WebSocketDeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10, clientMaxWindowBits: 9))
        for bad in ["client_max_window_bits", "client_max_window_bits=16", "server_max_window_bits=09", "server_no_context_takeover=1", "mode=fast"] {
            XCTAssertThrowsError(try handshake.deflate(try head(good + "Sec-WebSocket-Extensions: permessage-deflate; \(bad)\r\n\r\n")), bad)
        }
        // Without the offer, any extension is refused.
        let plain = WebSocketHandshake(subprotocols: [], key: "dGhlIHNhbXBsZSBub25jZQ==")
        XCTAssertFalse(String(decoding: try plain.request(for: URL(string: "ws://example.com/")!, headers: []), as: UTF8.self).contains("Extensions"))
        XCTAssertThrowsError(try plain.deflate(try head(good + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n")))
    }

    /// Compressing and inflating with the RFC 7692 §7.2.3.1 example, and each side's context.
    func testDeflateAndInflateRoundTrip() throws {
        // "Hello" compressed, as the RFC shows it.
        let inflater = try XCTUnwrap(WebSocketInflater(WebSocketDeflateParameters()))
        XCTAssertEqual(try inflater.inflate([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], final: true, limit: 100, messageLimit: 100), Array("Hello".utf8))
        // With context takeover the second "Hello" refers back to the first (§7.2.3.2): shorter.
        let deflater = try XCTUnwrap(WebSocketDeflater(WebSocketDeflateParameters()))
        let first = try XCTUnwrap(deflater.compress(Array("Hello".utf8)))
        let second = try XCTUnwrap(deflater.compress(Array("Hello".utf8)))
        XCTAssertLessThan(second.count, first.count)
        let reader = try XCTUnwrap(WebSocketInflater(WebSocketDeflateParameters()))
        XCTAssertEqual(try reader.inflate(first, final: true, limit: 100, messageLimit: 100), Array("Hello".utf8))
        XCTAssertEqual(try reader.inflate(second, final: true, limit: 100, messageLimit: 100), Array("Hello".utf8))
        // Without it, each message stands alone.
        let fresh = try XCTUnwrap(WebSocketDeflater(WebSocketDeflateParameters(clientNoContextTakeover: true)))
        XCTAssertEqual(fresh.compress(Array("Hello".utf8)), fresh.compress(Array("Hello".utf8)))
        // A window of 8 bits cannot be deflated with by zlib: no deflater, messages go plain.
        XCTAssertNil(WebSocketDeflater(WebSocketDeflateParameters(clientMaxWindowBits: 8)))
        XCTAssertThrowsError(try reader.inflate([0x06, 0x07], final: true, limit: 100, messageLimit: 100))
    }

    func testReplyHeadParsing() throws {
        XCTAssertNil(try WebSocketResponseHead.parse(Array("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\n".utf8)))
        let parsed = try XCTUnwrap(try WebSocketResponseHead.parse(Array("HTTP/1.1 101 OK\r\nA: b\r\n\r\n\u{81}\u{0}".utf8)))
        XCTAssertEqual(parsed.length, 25)   // the head and its blank line, not the frame after it
        XCTAssertThrowsError(try WebSocketResponseHead.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)))
        XCTAssertThrowsError(try WebSocketResponseHead.parse([UInt8](repeating: 0x41, count: 70_000)))
    }

    func testWhereARedirectLeadsAndWhatIsRefused() throws {
        func target(_ status: Int, _ location: String, from current: String) throws -> URL? {
            try WebSocketRedirect.target(of: WebSocketResponseHead(status: status, fields: [("Location", location)]), from: URL(string: current)!)
        }
        XCTAssertEqual(try target(301, "/next?a=1#frag", from: "ws://example.test/chat")?.absoluteString, "ws://example.test/next?a=1")
        XCTAssertEqual(try target(308, "https://other.test:8443/x", from: "wss://example.test/")?.absoluteString, "wss://other.test:8443/x")
        XCTAssertEqual(try target(302, "wss://example.test/up", from: "ws://example.test/")?.absoluteString, "wss://example.test/up")
        XCTAssertNil(try target(200, "/next", from: "ws://example.test/"), "no redirect status")
        XCTAssertNil(try target(304, "/next", from: "ws://example.test/"), "304 is no redirect")
        XCTAssertNil(try target(302, "  ", from: "ws://example.test/"), "no Location")
        XCTAssertThrowsError(try target(302, "ws://example.test/down", from: "wss://example.test/")) { error in
            guard case let .invalidHandshake(detail)? = error as? WebSocketError else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.contains("without TLS"), detail)
        }
        XCTAssertThrowsError(try target(302, "http://example.test/down", from: "wss://example.test/"))
        XCTAssertThrowsError(try target(302, "mailto:someone@example.test", from: "ws://example.test/"))

        XCTAssertTrue(WebSocketRedirect.sameOrigin(URL(string: "ws://Example.test/a")!, URL(string: "ws://example.test:80/b")!))
        XCTAssertFalse(WebSocketRedirect.sameOrigin(URL(string: "ws://example.test/")!, URL(string: "wss://example.test/")!))
        XCTAssertFalse(WebSocketRedirect.sameOrigin(URL(string: "ws://example.test/")!, URL(string: "ws://example.test:8080/")!))
    }
}
