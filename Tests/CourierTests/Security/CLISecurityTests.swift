import Foundation
import XCTest

/// What `courier` does with hostile input and hostile servers: refuses before sending, exits
/// with curl's code for what happened, and says so.
final class CLISecurityTests: CLITestCase {
    /// Runs `courier` through `/bin/sh`, so that an argument can hold bytes a Swift `String`
    /// cannot: `script` sees the executable as `$0` and `arguments` as `$1`, `$2`...
    private func courierViaShell(_ script: String, _ arguments: String..., in directory: URL? = nil) throws -> CLIResult {
        try RunningCourier(executable: URL(fileURLWithPath: "/bin/sh"),
                           arguments: ["-c", script, try executable().path] + arguments,
                           directory: directory, stdin: nil).finish()
    }

    private func assertExit(_ result: CLIResult, _ status: Int32, mentions text: String, stdout: Data = Data(),
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, status, result.stderrText, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains(text), "stderr does not mention \(text): \(result.stderrText)", file: file, line: line)
        XCTAssertEqual(result.stdout, stdout, file: file, line: line)
    }

    // MARK: - Headers

    func testHeaderWithLineBreaksIsAUsageErrorAndNothingIsSent() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/hello").absoluteString
        assertExit(try courier("-H", "Bad\r\nName: x", url), 2, mentions: #"header name "Bad\r\nName""#)
        assertExit(try courier("-H", "X-Trace: a\r\nInjected: 1", url), 2, mentions: #"header "X-Trace""#)
        assertExit(try courier("download", "-H", "Bad\r\nName: x", "-o", "x", url, in: try makeTemporaryDirectory()),
                   2, mentions: "Bad")
        XCTAssertEqual(server.connectionCount, 0)
    }

    func testBearerTokenWithNewlineIsAUsageErrorThatDoesNotShowIt() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("--bearer", "secret-token\n", server.url("/echo").absoluteString)
        assertExit(result, 2, mentions: "bearer token contains a line feed")
        XCTAssertFalse(result.stderrText.contains("secret"), result.stderrText)
        XCTAssertEqual(server.connectionCount, 0)
    }

    // MARK: - Redirects

    func testRedirectToFileSchemeExits1AndFetchesNothingElse() throws {
        let server = try makeServer()
        server.route("/moved") { _, writer in writer.respond(status: 302, headers: ["Location": "file:///etc/passwd"], text: "") }
        server.route("/etc/passwd") { _, writer in writer.respond(status: 200, text: "root:x:0:0") }
        let url = server.url("/moved").absoluteString
        assertExit(try courier("-L", url), 1, mentions: "redirect to unsupported scheme 'file' refused")
        let directory = try makeTemporaryDirectory()
        assertExit(try courier("download", url, in: directory), 1, mentions: "'file'")
        XCTAssertEqual(server.receivedRequests.map(\.path), ["/moved", "/moved"])
        XCTAssertEqual(fileNames(in: directory), [])
    }

    // MARK: - Timeouts

    func testAbsurdTimeoutWorksAndMeaninglessOnesAreUsageErrors() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/hello").absoluteString
        let result = try courier("--timeout", "1e300", url)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "hello")
        for value in ["nan", "-1", "inf", "-inf"] {
            assertUsageError(try courier("--timeout=\(value)", url), mentions: "--timeout needs a positive number")
        }
    }

    // MARK: - Server replies

    func testEachKindOfBadReplyHasItsOwnExitCode() throws {
        let server = try makeServer()
        server.route("/bad-status") { _, writer in
            writer.write(Data("HTTP/1.1 abc\r\n\r\n".utf8))
            writer.closeConnection()
        }
        server.route("/bad-chunk") { _, writer in
            writer.write(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n".utf8))
            writer.closeConnection()
        }
        server.route("/two-lengths") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "10"), ("Content-Length", "5")])
            writer.write(Data("hello".utf8))
            writer.closeConnection()
        }
        server.routeCuttingBody("/cut", announcing: 10, sending: 3)
        server.route("/nothing") { _, writer in writer.closeConnection() }

        // libcurl's words: "Unsupported HTTP version" (8.x: "Unsupported HTTP/1 subversion"),
        // "… in chunked-encoding" (8.6+: "chunk hex-length char not a hex digit").
        // A status line libcurl cannot read is its "unsupported protocol": 1, as curl exits.
        assertExit(try courier(server.url("/bad-status").absoluteString), 1, mentions: "not valid HTTP: Unsupported HTTP")
        // A chunk size libcurl cannot read is its CURLE_RECV_ERROR: 56, as curl exits.
        assertExit(try courier(server.url("/bad-chunk").absoluteString), 56, mentions: "chunk")
        assertExit(try courier(server.url("/two-lengths").absoluteString), 8, mentions: "conflicting Content-Length headers (10, 5)")
        assertExit(try courier("download", "-o", "f", server.url("/two-lengths").absoluteString, in: try makeTemporaryDirectory()),
                   8, mentions: "conflicting Content-Length")
        // The body is streamed: the 3 bytes that came are on stdout, as with curl.
        // libcurl's "transfer closed with 7 bytes remaining to read" (8.10+: "end of response with 7 bytes missing").
        assertExit(try courier(server.url("/cut").absoluteString), 18, mentions: "closed before the body was complete (",
                   stdout: Data("AAA".utf8))
        assertExit(try courier(server.url("/nothing").absoluteString), 52, mentions: "empty reply from 127.0.0.1")
    }

    // MARK: - Arguments that are not UTF-8

    func testNonUTF8ArgumentsAreUsageErrorsNotReplaced() throws {
        let server = try makeServer().withStandardRoutes()
        let directory = try makeTemporaryDirectory()
        // printf's octal escape gives the raw byte 0xE9 (Latin-1 "é"), which is not UTF-8.
        let outputName = try courierViaShell(#"exec "$0" -o "$(printf 'caf\351')" "$1""#, server.url("/hello").absoluteString,
                                             in: directory)
        assertExit(outputName, 2, mentions: "argument 2 (after -o) is not valid UTF-8")
        XCTAssertEqual(fileNames(in: directory), [], "no file named with U+FFFD")

        let query = try courierViaShell(#"exec "$0" "$1$(printf '\351')""#, server.url("/hello?q=").absoluteString)
        assertExit(query, 2, mentions: "argument 1 is not valid UTF-8")

        let header = try courierViaShell(#"exec "$0" -H "$(printf 'X-Name: caf\351')" "$1""#, server.url("/hello").absoluteString)
        assertExit(header, 2, mentions: "argument 2 (after -H) is not valid UTF-8")
        XCTAssertEqual(server.connectionCount, 0)

        // Valid UTF-8 passes untouched.
        let valid = try courierViaShell(#"exec "$0" -o "$(printf 'caf\303\251')" "$1""#, server.url("/hello").absoluteString,
                                        in: directory)
        XCTAssertEqual(valid.status, 0, valid.stderrText)
        XCTAssertEqual(fileNames(in: directory), ["café"])
    }
}
