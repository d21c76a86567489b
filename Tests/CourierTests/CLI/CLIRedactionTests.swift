import Foundation
import XCTest

/// `courier`'s messages never print the password of a `user:password@` URL or a token in its
/// query, whatever the failure.
final class CLIRedactionTests: CLITestCase {
    func testConnectionRefusedDoesNotPrintThePassword() throws {
        let url = "http://u:secret@127.0.0.1:\(TestServer.unusedPort())/?access_token=secret"
        // With every way courier shows a URL: the message, -v (attempts, retry, failure) and -w.
        let result = try courier(url, "-v", "--retry", "1", "--retry-connrefused", "--retry-delay", "1",
                                 "-w", "%{url_effective} %{url} %{errormsg}\n")
        XCTAssertEqual(result.status, 7, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("could not connect"), result.stderrText)
        XCTAssertTrue(result.stderrText.contains("retrying in 1 s"), result.stderrText)
        XCTAssertEqual(result.stderrText.components(separatedBy: "GET http://u:<redacted>@127.0.0.1").count, 3,
                       "each attempt is shown: \(result.stderrText)")
        XCTAssertTrue(result.stdoutText.hasPrefix("http://u:<redacted>@127.0.0.1"), result.stdoutText)
        XCTAssertFalse(result.stderrText.contains("secret"), result.stderrText)
        XCTAssertFalse(result.stdoutText.contains("secret"), result.stdoutText)
    }

    func testHTTPErrorWithFailNamesTheURLWithoutThePassword() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("-f", "http://u:secret@127.0.0.1:\(server.port)/status?code=404&token=secret")
        XCTAssertEqual(result.status, 22, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("HTTP 404"), result.stderrText)
        XCTAssertTrue(result.stderrText.contains("u:<redacted>@127.0.0.1"), result.stderrText)
        XCTAssertTrue(result.stderrText.contains("token=<redacted>"), result.stderrText)
        XCTAssertFalse(result.stderrText.contains("secret"), result.stderrText)
    }

    func testMalformedURLIsQuotedWithoutThePassword() throws {
        for (argument, status) in [("http://u:secret@[::1", Int32(3)), ("ftp://u:secret@example.com/", 1)] {
            let result = try courier(argument)
            XCTAssertEqual(result.status, status, result.stderrText)
            XCTAssertTrue(result.stderrText.contains("u:<redacted>@"), result.stderrText)
            XCTAssertFalse(result.stderrText.contains("secret"), result.stderrText)
        }
    }

    func testTooManyRedirectsNamesTheLocationWithoutThePassword() throws {
        let server = try makeServer()
        server.route("/loop") { _, writer in
            writer.respond(status: 302, headers: ["Location": "http://u:secret@127.0.0.1:\(server.port)/loop?token=secret"])
        }
        let result = try courier("-L", "http://u:secret@127.0.0.1:\(server.port)/loop")
        XCTAssertEqual(result.status, 47, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("too many redirects"), result.stderrText)
        XCTAssertFalse(result.stderrText.contains("secret"), result.stderrText)
    }

    func testDownloadsThatWouldCollideAreNamedWithoutThePassword() throws {
        let result = try courier("download", "http://u:secret@127.0.0.1:1/a.iso", "http://u:other-secret@127.0.0.1:2/a.iso")
        assertUsageError(result, mentions: "would both be saved")
        XCTAssertFalse(result.stderrText.contains("secret"), result.stderrText)
    }
}
