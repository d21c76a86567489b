import Courier
import Foundation
import XCTest

/// curl's options that courier reads and applies itself, on every engine alike: `-H` lines
/// libcurl leaves out, `-r N`, `--no-remote-name`, `--fail-early`, `--proto`,
/// `--disallow-username-in-url`, `--no-basic`, `-j`. Where the `curl` command is installed and
/// courier runs on the libcurl it was measured with, the same line must send the same.
final class CLILineOptionTests: CLITestCase {
    func testHeaderLinesWithoutAColonAreLeftOutAsLibcurlLeavesThem() throws {
        let server = try makeServer().withStandardRoutes()
        let arguments = ["-H", "no-colon", "-H", "X-Junk;ignored", "-H", "X-Blank;  ", "-H", "X-Empty;",
                         "-H", "X-Padded: foo; ", server.url("/echo").absoluteString]
        let result = try start(["-s"] + arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        var requests = [try lastRequest(to: "/echo", on: server)]
        if RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = try RealCurl.run(["-s", "-o", "/dev/null"] + arguments) {
            XCTAssertEqual(curl.status, 0, curl.stderrText)
            requests.append(try lastRequest(to: "/echo", on: server))
        }
        for request in requests {
            let names = request.headers.map { $0.name.lowercased() }
            XCTAssertFalse(names.contains { $0.hasPrefix("no-colon") || $0.hasPrefix("x-junk") || $0.hasPrefix("x-blank") }, "\(names)")
            XCTAssertEqual(request.header("X-Empty"), "")
            XCTAssertEqual(request.header("X-Padded").map { $0.hasPrefix("foo;") }, true)
        }
    }

    func testBlanksAfterAHeaderValueAreSentAsTyped() throws {
        // Test 17 of curl's suite: a config file's user agent ending with a tab.
        let capture = try RawCaptureServer()
        defer { capture.stop() }
        let result = try courier("-s", "-H", "X-Padded: foo; ", "-A", "agent\t", capture.url.absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let head = String(decoding: capture.received, as: UTF8.self)
        XCTAssertTrue(head.contains("\r\nX-Padded: foo; \r\n"), head)
        XCTAssertTrue(head.contains("\r\nUser-Agent: agent\t\r\n"), head)
    }

    func testARangeWithoutADashStartsThere() throws {
        let server = try makeServer()
        try serveFile(Data("0123456789".utf8), at: "/file", on: server)
        let result = try courier("-r", "4", server.url("/file").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try lastRequest(to: "/file", on: server).header("Range"), "bytes=4-")
        XCTAssertEqual(result.stdoutText, "456789")
        XCTAssertTrue(result.stderrText.contains("'4-'"), "curl warns that it appends the dash: \(result.stderrText)")
        // Not a number: still refused.
        assertUsageError(try courier("-r", "x4", server.url("/file").absoluteString), mentions: "-r needs a byte range")
    }

    func testNoRemoteNameKeepsTheNextURLOnStdout() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let url = server.url("/hello").absoluteString
        let result = try courier("--remote-name-all", "--no-remote-name", "--output-dir", folder.path, url, url)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "hello", "the first URL's body on stdout")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["hello"], "the second one's in a file")
    }

    func testFailEarlyStopsAtTheFirstFailure() throws {
        let server = try makeServer().withStandardRoutes()
        let failing = server.url("/status?code=404").absoluteString
        let fine = server.url("/hello").absoluteString
        let early = try courier("-sf", "--fail-early", failing, fine)
        XCTAssertEqual(early.status, 22, early.stderrText)
        XCTAssertEqual(server.requestCount, 1, "the second transfer is not started")
        XCTAssertEqual(early.stdoutText, "")
        // Without it, curl goes on, and the last transfer's status is the command's.
        let onward = try courier("-sf", failing, fine)
        XCTAssertEqual(onward.status, 0, onward.stderrText)
        XCTAssertEqual(server.requestCount, 3)
    }

    func testProtoAndDisallowUsernameRefuseTheURLBeforeSending() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/hello").absoluteString
        let cases: [([String], Int32)] = [
            (["--proto", "-all", url], 1), (["--proto", "=https", url], 1), (["--proto", "-http", url], 1),
            (["--proto", "-all,+http", url], 0), (["--proto", "=http", url], 0), (["--proto", "=nope", url], 1),
            (["--disallow-username-in-url", url.replacingOccurrences(of: "://", with: "://user:secret@")], 67),
            (["--disallow-username-in-url", url], 0),
        ]
        for (arguments, expected) in cases {
            let before = server.requestCount
            let result = try start(["-s"] + arguments).finish()
            XCTAssertEqual(result.status, expected, "\(arguments): \(result.stderrText)")
            XCTAssertEqual(server.requestCount - before, expected == 0 ? 1 : 0, "\(arguments)")
            if RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = try RealCurl.run(["-s", "-o", "/dev/null"] + arguments) {
                XCTAssertEqual(curl.status, expected, "curl \(arguments): \(curl.stderrText)")
            }
        }
        // An unknown name is warned about; a modifier curl does not know is a usage error.
        let unknown = try courier("--proto", "-all,+http,+nope", url)
        XCTAssertEqual(unknown.status, 0, unknown.stderrText)
        XCTAssertTrue(unknown.stderrText.contains("unrecognized protocol 'nope'"), unknown.stderrText)
        assertUsageError(try courier("--proto", "*http", url), mentions: "--proto")
    }

    func testNoBasicLeavesBasicToLibcurlsDefault() throws {
        let server = try makeServer().withStandardRoutes()
        // With no other method given, -u's Basic is still what goes, as curl's (it then sets no
        // method at all, and libcurl's default is Basic).
        let result = try courier("-s", "-u", "a:b", "--no-basic", server.url("/echo").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).header("Authorization"), "Basic YTpi")
    }

    func testJunkSessionCookiesLeavesTheFilesSessionCookiesOut() throws {
        let server = try makeServer().withStandardRoutes()
        let jar = try makeFile(named: "jar", content: Data("""
            127.0.0.1\tFALSE\t/\tFALSE\t2139150993\tkept\tyes
            127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tyes

            """.utf8))
        let url = server.url("/echo").absoluteString
        _ = try courier("-s", "-b", jar.path, url)
        let both = try lastRequest(to: "/echo", on: server).header("Cookie") ?? ""
        XCTAssertTrue(both.contains("kept=yes") && both.contains("session=yes"), both)
        let junked = try courier("-s", "-b", jar.path, "-j", url)
        XCTAssertEqual(junked.status, 0, junked.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).header("Cookie"), "kept=yes")
    }
}
