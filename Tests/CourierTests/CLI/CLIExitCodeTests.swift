import Courier
import Foundation
import XCTest

/// The documented exit statuses, curl's numbers where curl has one.
final class CLIExitCodeTests: CLITestCase {
    func testUnknownHostExits6() throws {
        // A 70-character label is not a valid host name: resolution fails locally, no DNS query.
        let result = try courier("http://" + String(repeating: "a", count: 70) + ".invalid/")
        XCTAssertEqual(result.status, 6, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("could not resolve host"), result.stderrText)
        XCTAssertEqual(result.stdout, Data())
    }

    func testConnectionRefusedExits7() throws {
        let result = try courier("http://127.0.0.1:\(TestServer.unusedPort())/")
        XCTAssertEqual(result.status, 7, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("connection refused"), result.stderrText)
    }

    /// A server that answers every request with `reply`, bytes as given, then closes.
    private func rawServer(_ reply: String) throws -> TestServer {
        let server = try makeServer()
        server.route("/raw") { _, writer in
            writer.write(Data(reply.utf8))
            writer.closeConnection()
        }
        return server
    }

    func testAnUnknownHTTPVersionExits1AndAnOverflowingLengthPastMaxFilesize63AsCurl() throws {
        // How a status line is read is libcurl's: these two hold on the libcurl curl 7.88.1 runs on.
        if RealCurl.courierRunsOnTheMeasuredLibcurl {
            let version = try rawServer("HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nhi")
            let url = version.url("/raw").absoluteString
            let result = try courier("-s", url)
            XCTAssertEqual(result.status, 1, "curl's unsupported protocol: \(result.stderrText)")
            if let curl = try RealCurl.run(["-s", url]) { XCTAssertEqual(curl.status, 1) }
            let negative = try rawServer("HTTP/1.1 -12 OK\r\nContent-Length: 2\r\n\r\nhi")
            XCTAssertEqual(try courier("-s", negative.url("/raw").absoluteString).status, 1, "a status code libcurl does not take")
            if let curl = try RealCurl.run(["-s", negative.url("/raw").absoluteString]) { XCTAssertEqual(curl.status, 1) }
        }
        // A gzip body whose header is broken, with --compressed: curl's bad content encoding, 61.
        let broken = try rawServer("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\n\r\nnot gzip!")
        let brokenArguments = ["-s", "--compressed", broken.url("/raw").absoluteString]
        XCTAssertEqual(try start(brokenArguments).finish().status, 61)
        if let curl = try RealCurl.run(brokenArguments) { XCTAssertEqual(curl.status, 61) }

        let huge = try rawServer("HTTP/1.1 200 OK\r\nContent-Length: 36893488147419103232\r\nConnection: close\r\n\r\n-foo-\n")
        let hugeURL = huge.url("/raw").absoluteString
        let limited = try courier("-s", "--max-filesize", "2000000", hugeURL)
        XCTAssertEqual(limited.status, 63, limited.stderrText)
        XCTAssertEqual(limited.stdout, Data())
        if let curl = try RealCurl.run(["-s", "--max-filesize", "2000000", hugeURL]) { XCTAssertEqual(curl.status, 63) }
    }

    func testABadChunkSizeExits56AndABrokenBrotliStream61AsCurl() throws {
        // libcurl's CURLE_RECV_ERROR for a chunk size it cannot read, the body before it written.
        let chunked = try rawServer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\nZZ\r\n")
        let chunkedArguments = ["-s", chunked.url("/raw").absoluteString]
        let result = try start(chunkedArguments).finish()
        XCTAssertEqual(result.status, 56, result.stderrText)
        XCTAssertEqual(result.stdoutText, "ab")
        if let curl = try RealCurl.run(chunkedArguments) { XCTAssertEqual(curl.status, 56) }
        // Its CURLE_BAD_CONTENT_ENCODING for a brotli stream it cannot start, with --compressed
        // (where libcurl has brotli).
        guard Network.Engine.automatic.resolved == .curl, Network.Engine.curlFeatures?.contentDecoders.contains("br") == true else { return }
        let brotli = try rawServer("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\n\u{7F}\u{7F}\u{7F}\u{7F}")
        let brotliArguments = ["-s", "--compressed", brotli.url("/raw").absoluteString]
        XCTAssertEqual(try start(brotliArguments).finish().status, 61)
        if let curl = try RealCurl.run(brotliArguments) { XCTAssertEqual(curl.status, 61) }
    }

    func testTimeoutExits28() throws {
        let server = try makeServer()
        // The server answers only when the test ends, so only --timeout can end the command.
        holdRequests(at: "/never", on: server, text: "too late")
        let result = try courier("--timeout", "0.5", server.url("/never").absoluteString)
        XCTAssertEqual(result.status, 28, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("timed out after 0.5 s"), result.stderrText)
        XCTAssertEqual(result.stdout, Data())
    }

    /// `-Y`/`-y`: a body slower than the limit for that long ends with curl's 28 and libcurl's
    /// sentence; on URLSession, which cannot keep it, the options are refused (4).
    func testASpeedLimitGivesUpOnASlowBodyWith28() throws {
        let server = try stallingServer()
        let arguments = ["-s", "-S", "-Y", "1000", "-y", "1", server.url("/stall").absoluteString]
        let result = try start(arguments).finish()
        if ProcessInfo.processInfo.environment["COURIER_ENGINE"] == "urlsession" {
            XCTAssertEqual(result.status, 4, result.stderrText)
            return
        }
        XCTAssertEqual(result.status, 28, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("Operation too slow. Less than 1000 bytes/sec transferred the last 1 seconds"),
                      result.stderrText)
        if let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.status, 28)
            XCTAssertTrue(curl.stderrText.contains("Operation too slow. Less than 1000 bytes/sec transferred the last 1 seconds"))
        }
    }

    func testUnsupportedSchemeExits1AndMalformedURLExits3() throws {
        // curl's "Protocol not supported" is 1; -s silences its message, as curl's.
        let result = try courier("ftp://example.invalid/file")
        XCTAssertEqual(result.status, 1, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("only http and https"), result.stderrText)
        let silent = try courier("-s", "ftp://example.invalid/file")
        XCTAssertEqual(silent.status, 1)
        XCTAssertEqual(silent.stderr, Data())
        XCTAssertEqual(try courier("http://").status, 3)
    }

    /// An HTTP/2 stream the server resets half-way through its body (`RST_STREAM`,
    /// `INTERNAL_ERROR`) is curl's 92 (CURLE_HTTP2_STREAM), not 56. Over cleartext that takes
    /// prior knowledge, which only the curl engine speaks (URLSession refuses the option: 2).
    func testAnHTTP2StreamResetMidBodyExits92() throws {
        let folder = try makeTemporaryDirectory()
        let server = try H2ResetServer(in: folder)
        defer { server.stop() }
        let url = server.url.absoluteString
        let result = try start(["--engine", "curl", "-sS", "--http2-prior-knowledge", "-o", "body", url], in: folder).finish()
        XCTAssertEqual(result.status, 92, result.stderrText)
        // libcurl 7.74 names the stream 0 in its message, 7.88 stream 1.
        XCTAssertTrue(result.stderrText.contains("was not closed cleanly: INTERNAL_ERROR"), result.stderrText)
        if let curl = try RealCurl.run(["-sS", "--http2-prior-knowledge", "-o", folder.appendingPathComponent("curl").path, url]) {
            XCTAssertEqual(curl.status, 92, curl.stderrText)
        }
        assertUsageError(try courier("--engine", "urlsession", "--http2-prior-knowledge", url), mentions: "needs the curl engine")
    }

    func testMissingFileToSendExits26BeforeConnecting() throws {
        let server = try makeServer().withStandardRoutes()
        let missing = try makeTemporaryDirectory().appendingPathComponent("missing.bin").path
        for arguments in [["--upload-file", missing], ["--form", "f=@" + missing], ["-s", "-T", missing]] {
            let result = try start(arguments + [server.url("/echo").absoluteString]).finish()
            XCTAssertEqual(result.status, 26, "\(arguments): \(result.stderrText)")
            XCTAssertTrue(result.stderrText.contains("missing.bin"), "even with -s, as curl: \(result.stderrText)")
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testMissingDataFileMakesAnEmptyPostAsInCurl() throws {
        let server = try makeServer().withStandardRoutes()
        let missing = try makeTemporaryDirectory().appendingPathComponent("missing.bin").path
        for option in ["--data", "--data-binary"] {
            let result = try courier(option, "@" + missing, server.url("/echo").absoluteString)
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertTrue(result.stderrText.contains("missing.bin"), "a warning names the file: \(result.stderrText)")
            let request = try lastRequest(to: "/echo", on: server)
            XCTAssertEqual(request.method, "POST")
            XCTAssertEqual(request.body, Data())
        }
        XCTAssertEqual(try courier("-s", "-d", "@" + missing, server.url("/echo").absoluteString).stderr, Data(), "-s silences it")
    }

    func testSIGTERMCancelsAndExits130() throws {
        let server = try makeServer()
        holdRequests(at: "/never", on: server, text: "too late")
        let running = try start([server.url("/never").absoluteString])
        XCTAssertTrue(waitUntil { server.currentConcurrentRequests == 1 })
        running.terminate()
        let result = running.finish()
        XCTAssertEqual(result.status, 130, result.stderrText)
        XCTAssertEqual(result.stderrText, "courier: interrupted\n")
        XCTAssertEqual(result.stdout, Data())
    }

    func testCtrlCWhileReadingTheBodyFromStdinExits130() throws {
        let server = try makeServer().withStandardRoutes()
        // `--data @-` with a stdin that never ends: courier is still reading, no request yet.
        let running = try start(["post", server.url("/echo").absoluteString, "--data", "@-"], keepingStdinOpen: true)
        // Signal only once courier has taken over SIGINT (it blocks it in its first statement);
        // before that the default action would kill it, which is not what this test is about.
        let sigint: UInt64 = 1 << (UInt64(SIGINT) - 1)
        XCTAssertTrue(waitUntil { (running.blockedSignals ?? 0) & sigint != 0 })
        running.interrupt()
        let result = running.finish()
        XCTAssertEqual(result.status, 130, result.stderrText)
        XCTAssertEqual(result.stderrText, "courier: interrupted\n")
        XCTAssertEqual(server.requestCount, 0)
    }
}
