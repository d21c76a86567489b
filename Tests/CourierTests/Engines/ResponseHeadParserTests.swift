@testable import Courier
import XCTest

/// The curl engine's reader of response heads, line by line as libcurl hands them over.
final class ResponseHeadParserTests: XCTestCase {
    private func feed(_ lines: [String]) -> [ResponseHeadParser.Event] {
        var parser = ResponseHeadParser()
        return lines.map { parser.consume(Array($0.utf8)) }
    }

    func testAFinalHeadWithItsFieldsInOrder() {
        let events = feed(["HTTP/1.1 200 OK\r\n", "Content-Type: text/plain\r\n", "X-A:  padded \t\r\n", "\r\n"])
        XCTAssertEqual(events.dropLast(), [.pending, .pending, .pending])
        guard case let .head(head) = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(head.version, "HTTP/1.1")
        XCTAssertEqual(head.fields.map(\.name), ["Content-Type", "X-A"])
        XCTAssertEqual(head.fields.map(\.value), ["text/plain", "padded"])
    }

    func testInterimHeadsAreSkippedAndTrailersIgnored() {
        let events = feed(["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n", "\r\n",
                           "HTTP/2 201 \r\n", "Location: /x\r\n", "\r\n", "Trailer-Field: after the body\r\n"])
        let heads = events.compactMap { event -> ResponseHeadParser.Head? in
            if case let .head(head) = event { return head }
            return nil
        }
        XCTAssertEqual(heads.count, 1)
        XCTAssertEqual(heads.first?.statusCode, 201)
        XCTAssertEqual(heads.first?.version, "HTTP/2")
        XCTAssertEqual(heads.first?.fields.map(\.name), ["Location"])
        XCTAssertEqual(events.last, .pending)
    }

    /// Whatever the libcurl underneath lets through (before 7.83.0 libcurl passes a NUL on).
    func testANulByteInTheHeadIsMalformed() {
        XCTAssertEqual(feed(["HTTP/1.1 200 OK\r\n", "X-A: a\u{0}b\r\n"]).last, .malformed("a header line contains a NUL byte"))
        XCTAssertEqual(feed(["HTTP/1.1 200\u{0} OK\r\n"]).last, .malformed("a header line contains a NUL byte"))
        XCTAssertEqual(feed(["HTTP/1.1 200 OK\r\n", "X-A: ab\r\n"]).last, .pending)
    }

    /// libcurl's 300 KiB limit on a head, whatever the libcurl (7.74 has none).
    func testAHeadOver300KiBIsMalformed() {
        var parser = ResponseHeadParser()
        XCTAssertEqual(parser.consume(Array("HTTP/1.1 200 OK\r\n".utf8)), .pending)
        let line = Array("X-Filler: \(String(repeating: "a", count: 1000))\r\n".utf8)
        var event = ResponseHeadParser.Event.pending
        var lines = 0
        while event == .pending, lines < 1000 {
            event = parser.consume(line)
            lines += 1
        }
        guard case let .malformed(reason) = event else { return XCTFail("\(event) after \(lines) lines") }
        XCTAssertTrue(reason.hasPrefix("Too large response headers: "), reason)
        XCTAssertTrue(reason.hasSuffix(" > 307200"), reason)
        XCTAssertEqual(lines, (ResponseHeadParser.maximumHeadBytes - 17) / line.count + 1)
    }

    func testAFoldedLineRightAfterTheStatusLineIsMalformed() {
        XCTAssertEqual(feed(["HTTP/1.1 200 OK\r\n", " X-Folded: 1\r\n"]).last,
                       .malformed("a header line starts with whitespace and no field precedes it"))
        XCTAssertEqual(feed(["HTTP/1.1 200 OK\r\n", "X-A: 1\r\n", " more\r\n"]).last, .pending)
    }

    func testLinesWithBareLineFeedsAndFoldedValues() {
        let events = feed(["HTTP/1.0 404 Not Found\n", "X-Long: first\n", " second\n", "\n"])
        guard case let .head(head) = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(head.statusCode, 404)
        XCTAssertEqual(head.fields.first?.value, "first second")
    }

    func testRepeatedFieldsAreJoinedInTheDictionaryView() {
        let events = feed(["HTTP/1.1 200 OK\r\n", "Set-Cookie: a=1\r\n", "set-cookie: b=2\r\n", "\r\n"])
        guard case let .head(head) = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(head.fieldDictionary, ["Set-Cookie": "a=1, b=2"])
    }

    func testWhatIsNotHTTPIsMalformed() {
        XCTAssertEqual(feed(["hello\r\n"]).first, .malformed("the reply does not start with an HTTP status line"))
        guard case .malformed? = feed(["HTTP/1.1 abc\r\n"]).first else { return XCTFail("a status that is not a number") }
        guard case .malformed? = feed(["HTTP/1.1 99 Low\r\n"]).first else { return XCTFail("a status below 100") }
        guard case .malformed? = feed(["HTTP/1.1 +200 OK\r\n"]).first else { return XCTFail("a signed status") }
        guard case .malformed? = feed(["HTTP/1.1 2000 OK\r\n"]).first else { return XCTFail("four digits") }
        guard case .malformed? = feed(["HTTP/ 200 OK\r\n"]).first else { return XCTFail("no version number") }
        guard case .malformed? = feed(["HTTP/1.x 200 OK\r\n"]).first else { return XCTFail("a version that is not a number") }
        XCTAssertEqual(feed(["HTTP/1.1 200 OK\r\n", "NoColonHere\r\n"]).last, .malformed("a header line has no colon"))
    }

    /// Found by scripts/fuzz: `HTTP/` then a combining mark (U+035B) was taken as a version, and
    /// as a String it no longer starts with `HTTP/` (the slash and the mark are one Character).
    func testAVersionIsDigitsAndDotsOnly() {
        let line: [UInt8] = Array("HTTP/".utf8) + [0xCD, 0x9B] + Array("TTP/2 200 OK\r\n".utf8)
        var parser = ResponseHeadParser()
        guard case .malformed = parser.consume(line) else { return XCTFail("a combining mark in the version") }
        for (status, version) in [("HTTP/2 204\r\n", "HTTP/2"), ("HTTP/1.0 404 Not Found\r\n", "HTTP/1.0")] {
            let events = feed([status, "\r\n"])
            guard case let .head(head) = events.last else { return XCTFail("\(status): \(events)") }
            XCTAssertEqual(head.version, version)
        }
    }

    func testNonUTF8BytesNeverTrap() {
        var parser = ResponseHeadParser()
        XCTAssertEqual(parser.consume([0x48, 0x54, 0x54, 0x50, 0x2F, 0x31, 0x20, 0x32, 0x30, 0x30, 0x0D, 0x0A]), .pending)
        XCTAssertEqual(parser.consume([0xFF, 0xFE, 0x3A, 0xC3, 0x28, 0x0D, 0x0A]), .pending)
        guard case let .head(head) = parser.consume([0x0D, 0x0A]) else { return XCTFail() }
        XCTAssertEqual(head.fields.count, 1)
    }
}
