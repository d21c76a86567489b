@testable import Courier
import XCTest

/// RFC 6455's framing: the client's encoder, the decoder's checks of what a server may send, and
/// the assembly of fragmented messages.
final class WebSocketFrameTests: XCTestCase {
    /// A server frame (unmasked), as the decoder reads them.
    private func serverFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, reserved: UInt8 = 0) -> [UInt8] {
        var frame = WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: .binary, payload: payload), maskKey: nil)
        frame[0] = (fin ? 0x80 : 0) | reserved | opcode
        return frame
    }

    private func decode(_ bytes: [UInt8], limit: Int = 1 << 20) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(maximumPayload: limit)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        return frames
    }

    func testRFCExampleMaskedHello() {
        // RFC 6455 §5.7: a single-frame masked text message "Hello".
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), maskKey: [0x37, 0xfa, 0x21, 0x3d])
        XCTAssertEqual(bytes, [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    }

    func testLengthFormsAtTheirBoundaries() throws {
        for (count, headerLength, marker) in [(0, 2, 0), (125, 2, 125), (126, 4, 126), (65535, 4, 126), (65536, 10, 127)] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
            let key: [UInt8] = [1, 2, 3, 4]
            let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload), maskKey: key)
            XCTAssertEqual(bytes.count, headerLength + 4 + count, "\(count)")
            XCTAssertEqual(Int(bytes[1] & 0x7F), marker, "\(count)")
            XCTAssertEqual(bytes[1] & 0x80, 0x80, "masked")
            // Unmasked again, the payload is what was sent.
            var body = Array(bytes[(headerLength + 4)...])
            body.withUnsafeMutableBytes { WebSocketFrameEncoder.applyMask(key, to: $0) }
            XCTAssertEqual(body, payload)
            // The server's form of the same frame decodes to it.
            XCTAssertEqual(try decode(serverFrame(2, payload)).first?.payload, payload)
        }
    }

    func testMaskKeysAreRandom() {
        let keys = Set((0..<64).map { _ in WebSocketFrameEncoder.randomMaskKey() })
        XCTAssertGreaterThan(keys.count, 60)
    }

    func testFramesSplitAtEveryByteDecodeTheSame() throws {
        let bytes = serverFrame(1, Array("fragmented across reads".utf8)) + serverFrame(9, [1, 2])
        for split in 0...bytes.count {
            var decoder = WebSocketFrameDecoder(maximumPayload: 1024)
            var frames: [WebSocketFrame] = []
            decoder.append(Array(bytes[..<split]))
            while let frame = try decoder.next() { frames.append(frame) }
            decoder.append(Array(bytes[split...]))
            while let frame = try decoder.next() { frames.append(frame) }
            XCTAssertEqual(frames.map(\.opcode), [.text, .ping], "split at \(split)")
        }
    }

    func testHostileHeadersAreRefused() {
        func refused(_ bytes: [UInt8], limit: Int = 1 << 20, _ check: (WebSocketError) -> Bool, line: UInt = #line) {
            do {
                _ = try decode(bytes, limit: limit)
                XCTFail("accepted", line: line)
            } catch { XCTAssertTrue(check(error as! WebSocketError), "\(error)", line: line) }
        }
        func violation(_ error: WebSocketError) -> Bool { if case .protocolViolation = error { return true }; return false }
        refused(serverFrame(2, [1], reserved: 0x40), violation)               // RSV1 without an extension
        refused(serverFrame(2, [1], reserved: 0x10), violation)               // RSV3
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] { refused(serverFrame(opcode, []), violation) }
        refused(serverFrame(9, [], fin: false), violation)                     // fragmented ping
        refused(serverFrame(9, [UInt8](repeating: 0, count: 126)), violation)  // a ping of 126 bytes
        var masked = serverFrame(1, [0x41])
        masked[1] |= 0x80
        refused(masked + [0, 0, 0, 0], violation)                              // masked by the server
        // 2^63 announced: refused at the header, before any payload.
        refused([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], violation)
        // Just under 2^63, and just over a small limit: the typed size error, at the header.
        refused([0x82, 127, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) { if case .messageTooLarge = $0 { return true }; return false }
        refused(serverFrame(2, [UInt8](repeating: 0, count: 11)), limit: 10) { if case .messageTooLarge(10) = $0 { return true }; return false }
    }

    func testAPingOf125BytesIsAccepted() throws {
        XCTAssertEqual(try decode(serverFrame(9, [UInt8](repeating: 7, count: 125))).first?.payload.count, 125)
    }

    // MARK: - Assembly

    private func assemble(_ frames: [WebSocketFrame], limit: Int = 1 << 20) throws -> [WebSocketEvent] {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: limit)
        return try frames.compactMap { try assembler.take($0) }
    }

    func testFragmentsWithControlFramesBetween() throws {
        let events = try assemble([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(opcode: .ping, payload: [1]),
            WebSocketFrame(fin: false, opcode: .continuation, payload: []),
            WebSocketFrame(opcode: .pong, payload: [2]),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
            WebSocketFrame(opcode: .binary, payload: []),
        ])
        XCTAssertEqual(events, [.ping([1]), .pong([2]), .message(.text("Hello")), .message(.binary(Data()))])
    }

    /// Found by scripts/ws-conformance (Autobahn 6.1.2): a text message whose fragments are all
    /// empty stays text (it was taken for a one-frame message of its last frame's opcode).
    func testAnEmptyTextMessageInEmptyFragmentsIsText() throws {
        let events = try assemble([
            WebSocketFrame(fin: false, opcode: .text, payload: []),
            WebSocketFrame(fin: false, opcode: .continuation, payload: []),
            WebSocketFrame(opcode: .continuation, payload: []),
            WebSocketFrame(fin: false, opcode: .binary, payload: []),
            WebSocketFrame(opcode: .continuation, payload: []),
        ])
        XCTAssertEqual(events, [.message(.text("")), .message(.binary(Data()))])
    }

    func testFragmentationErrors() {
        XCTAssertThrowsError(try assemble([WebSocketFrame(opcode: .continuation, payload: [1])]))
        XCTAssertThrowsError(try assemble([WebSocketFrame(fin: false, opcode: .text, payload: [0x41]),
                                           WebSocketFrame(opcode: .text, payload: [0x41])]))
    }

    func testInvalidUTF8FailsInTheFragmentThatHoldsIt() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1 << 20)
        // κόσμε, then an invalid byte in the second fragment: the failure comes with that fragment,
        // before the message's last one.
        XCTAssertNil(try assembler.take(WebSocketFrame(fin: false, opcode: .text, payload: [0xCE, 0xBA, 0xE1, 0xBD])))
        XCTAssertThrowsError(try assembler.take(WebSocketFrame(fin: false, opcode: .continuation, payload: [0xB9, 0xCF, 0x83, 0xFF]))) {
            guard case .invalidUTF8 = $0 as? WebSocketError else { return XCTFail("\($0)") }
        }
        // A sequence split across fragments is valid.
        XCTAssertEqual(try assemble([WebSocketFrame(fin: false, opcode: .text, payload: [0xCE]),
                                     WebSocketFrame(opcode: .continuation, payload: [0xBA])]), [.message(.text("κ"))])
        // A message ending inside a sequence is not.
        XCTAssertThrowsError(try assemble([WebSocketFrame(opcode: .text, payload: [0xCE])]))
    }

    func testMessageSizeIsCountedAcrossFragments() {
        XCTAssertThrowsError(try assemble([WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6)),
                                           WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0, count: 5))], limit: 10)) {
            guard case .messageTooLarge(10) = $0 as? WebSocketError else { return XCTFail("\($0)") }
        }
    }

    func testCloseCodes() throws {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
            XCTAssertEqual(try WebSocketMessageAssembler.close([UInt8(code >> 8), UInt8(code & 0xFF)]),
                           .close(WebSocketCloseCode(rawValue: code), ""), "\(code)")
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            XCTAssertThrowsError(try WebSocketMessageAssembler.close([UInt8(code >> 8), UInt8(code & 0xFF)]), "\(code)")
        }
        XCTAssertEqual(try WebSocketMessageAssembler.close([]), .close(.noStatusReceived, ""))
        XCTAssertThrowsError(try WebSocketMessageAssembler.close([0x03]))
        XCTAssertThrowsError(try WebSocketMessageAssembler.close([0x03, 0xE8, 0xFF]))   // reason not UTF-8
        XCTAssertEqual(try WebSocketMessageAssembler.close([0x03, 0xE8] + Array("bye".utf8)), .close(.normalClosure, "bye"))
    }

    func testOurCloseReasonIsCutToFitAtACharacterBoundary() {
        let payload = WebSocketMessageAssembler.closePayload(.normalClosure, String(repeating: "é", count: 100))
        XCTAssertLessThanOrEqual(payload.count, 125)
        XCTAssertTrue(UTF8Validator.isValid(Array(payload[2...])))
    }
}
