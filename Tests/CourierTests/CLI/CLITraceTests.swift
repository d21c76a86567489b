import Foundation
import XCTest

/// `--trace`, `--trace-ascii` and `--trace-time`: the exchange written to a file in curl's trace
/// format (curl's test suite puts `--trace-ascii log/traceN --trace-time` on every command line).
final class CLITraceTests: CLITestCase {
    func testTraceAsciiWritesTheRequestAndResponseHeadsInCurlsFormat() throws {
        let server = try makeServer().withStandardRoutes()
        let trace = try makeTemporaryDirectory().appendingPathComponent("trace")
        let result = try courier("--trace-ascii", trace.path, "--trace-time", server.url("/hello").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "hello", "the body still goes to stdout")
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        // `HH:MM:SS.uuuuuu => Send header, N bytes (0xN)`, then the head a line a row (CR LF ends a row).
        let send = try XCTUnwrap(lines.firstIndex { $0.range(of: #"^\d\d:\d\d:\d\d\.\d{6} => Send header, \d+ bytes \(0x[0-9a-f]+\)$"#,
                                                             options: .regularExpression) != nil }, lines.joined(separator: "\n"))
        XCTAssertEqual(lines[send + 1], "0000: GET /hello HTTP/1.1")
        XCTAssertEqual(lines[send + 2], "0015: Host: 127.0.0.1:\(server.port)")
        XCTAssertTrue(lines.contains { $0.hasSuffix("<= Recv header, 17 bytes (0x11)") }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("0000: HTTP/1.1 200 OK"), lines.joined(separator: "\n"))
    }

    func testTraceWritesHexAndTextSixteenBytesARowAndTheLastTraceOptionWins() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let ascii = folder.appendingPathComponent("ascii"), hex = folder.appendingPathComponent("hex")
        let result = try courier("--trace-ascii", ascii.path, "--trace", hex.path, server.url("/hello").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ascii.path), "the last of --trace and --trace-ascii wins, as in curl")
        let lines = try String(contentsOf: hex, encoding: .utf8).split(separator: "\n").map(String.init)
        let send = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("=> Send header, ") }, lines.joined(separator: "\n"))
        XCTAssertEqual(lines[send + 1], "0000: 47 45 54 20 2f 68 65 6c 6c 6f 20 48 54 54 50 2f GET /hello HTTP/")
        XCTAssertEqual(lines[send + 2].prefix(54), "0010: 31 2e 31 0d 0a 48 6f 73 74 3a 20 31 32 37 2e 30 ")
    }
}
