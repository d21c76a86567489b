@testable import Courier
import Foundation
import XCTest

/// The event-stream parser against the examples of the WHATWG HTML standard ("Server-sent
/// events", section "Parsing an event stream" and around), fed as bytes in every possible
/// split, and the line splitter it stands on.
final class ServerSentEventParserTests: XCTestCase {
    /// The events of `stream`, fed whole, byte by byte, and in two parts at every offset: chunk
    /// boundaries must change nothing.
    private func events(_ stream: String, file: StaticString = #filePath, line: UInt = #line) throws -> [ServerSentEvent] {
        let bytes = Data(stream.utf8)
        var whole = ServerSentEventDecoder()
        let expected = try whole.events(in: bytes)
        var byByte = ServerSentEventDecoder()
        XCTAssertEqual(try bytes.flatMap { try byByte.events(in: Data([$0])) }, expected, "byte by byte", file: file, line: line)
        for cut in 0...bytes.count {
            var split = ServerSentEventDecoder()
            let events = try split.events(in: bytes.prefix(cut)) + split.events(in: bytes.dropFirst(cut))
            XCTAssertEqual(events, expected, "cut at \(cut)", file: file, line: line)
        }
        return expected
    }

    func testDataLinesAreJoinedWithNewlines() throws {
        // "data: YHOO / data: +2 / data: 10": one message, "YHOO\n+2\n10".
        XCTAssertEqual(try events("data: YHOO\ndata: +2\ndata: 10\n\n"), [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    func testCommentsIDsAndTheLastBlockNeedingABlankLine() throws {
        // The standard's four-block example: a comment alone fires nothing; "first event" sets
        // the last event ID to 1; an `id` with no value resets it to empty; " third event" keeps
        // one of its two spaces.
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        XCTAssertEqual(try events(stream), [
            ServerSentEvent(data: "first event", lastEventID: "1"),
            ServerSentEvent(data: "second event", lastEventID: ""),
            ServerSentEvent(data: " third event", lastEventID: ""),
        ])
        // Without the final blank line the last block is not dispatched.
        XCTAssertEqual(try events("data: first\n\ndata: unfinished\n").map(\.data), ["first"])
    }

    func testEmptyDataAndABlockOfTwoEmptyDataLines() throws {
        // "data / (blank) / data / data / (blank) / data:": two events, "" and "\n"; the last
        // block is discarded (no blank line after it).
        XCTAssertEqual(try events("data\n\ndata\ndata\n\ndata:").map(\.data), ["", "\n"])
    }

    func testOneSpaceAfterTheColonIsDropped() throws {
        XCTAssertEqual(try events("data:test\n\ndata: test\n\n").map(\.data), ["test", "test"])
    }

    func testEventTypes() throws {
        let stream = "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n"
        XCTAssertEqual(try events(stream).map { "\($0.type) \($0.data)" }, ["add 73857293", "remove 2153", "add 113411"])
        // The type does not carry over to the next event.
        XCTAssertEqual(try events("event: a\ndata: 1\n\ndata: 2\n\n").map(\.type), ["a", "message"])
    }

    func testEveryLineEndingAndAByteOrderMark() throws {
        // CRLF, a lone CR and LF all end lines, mixed in one stream (a CR at the end of one chunk
        // and the LF at the start of the next are one ending: see the splits above). A BOM
        // opening the stream is skipped; one later on is data.
        let stream = "\u{FEFF}data: a\r\ndata: b\rdata: c\n\r\n" + "data: \u{FEFF}d\r\r"
        XCTAssertEqual(try events(stream).map(\.data), ["a\nb\nc", "\u{FEFF}d"])
        // Without the BOM being skipped, the first field would be "\u{FEFF}data" and be ignored.
        XCTAssertEqual(try events("\u{FEFF}data: x\n\n").map(\.data), ["x"])
    }

    func testRetryIDAndUnknownFields() throws {
        let stream = "retry: 2500\nid: 7\nfoo: bar\ndata: one\n\nretry: 12x\ndata: two\n\nid: a\u{0}b\ndata: three\n\n"
        XCTAssertEqual(try events(stream), [
            ServerSentEvent(data: "one", lastEventID: "7", retry: 2500),
            ServerSentEvent(data: "two", lastEventID: "7", retry: 2500),   // "12x" is not digits: ignored
            ServerSentEvent(data: "three", lastEventID: "7", retry: 2500),  // an id with NUL is ignored
        ])
        // A field without a colon has an empty value; a value keeps further colons.
        XCTAssertEqual(try events("data\ndata: a:b\n\n").map(\.data), ["\na:b"])
    }

    func testLinesSplitOnLineFeedAndCRLFOnly() throws {
        var splitter = LineSplitter(endings: .lineFeed)
        var lines = try splitter.lines(in: Data("a\r\nb\r".utf8)) + splitter.lines(in: Data("\n\nc\rd\n".utf8))
        if let last = splitter.finish() { lines.append(last) }
        XCTAssertEqual(lines.map { String(decoding: $0, as: UTF8.self) }, ["a", "b", "", "c\rd"])
        // A last line without an ending counts; an ending at the very end makes no extra line.
        var unfinished = LineSplitter(endings: .lineFeed)
        XCTAssertEqual(try unfinished.lines(in: Data("x\ny".utf8)).count, 1)
        XCTAssertEqual(unfinished.finish(), Data("y".utf8))
        XCTAssertNil(unfinished.finish())
    }
}
