import Foundation
import XCTest

/// `-v`: request and response heads, redirects, retries and times on stderr, and never a
/// credential: not an `Authorization`, `Proxy-Authorization`, `Cookie` or `Set-Cookie` value,
/// not a URL's password, not a token parameter.
final class CLIVerboseTests: CLITestCase {
    func testHeadsAreShownOnStderrAndTheBodyAloneOnStdout() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("-v", "-H", "X-Trace: 7", server.url("/hello?page=2").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "hello")
        let log = result.stderrText
        for line in ["> GET /hello?page=2 HTTP/1.1\n", "> Host: 127.0.0.1:\(server.port)\n", "> X-Trace: 7\n", ">\n",
                     "< HTTP/1.1 200 OK\n", "< Content-Type: text/plain\n", "<\n"] {
            XCTAssertTrue(log.contains(line), "missing \(line.debugDescription) in:\n\(log)")
        }
        // The body is streamed to stdout: its size is not known yet when the head is logged.
        XCTAssertNotNil(log.range(of: #"\* [0-9]+\.[0-9]{3} s response 200"#, options: .regularExpression), log)
    }

    func testCredentialsNeverAppear() throws {
        let server = try makeServer()
        server.route("/login") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/home?token=secret-location", "Set-Cookie": "session=secret-session; Path=/"])
        }
        server.route("/home") { request, writer in
            writer.respond(status: 200, headers: ["Set-Cookie": "other=secret-other"], text: "home")
        }
        let url = "http://user:secret-password@127.0.0.1:\(server.port)/login?access_token=secret-token&page=1"
        let result = try courier("-vL", "-b", "jar=secret-jar", "--bearer", "secret-bearer", "-H", "Proxy-Authorization: secret-proxy",
                                 "-H", "Cookie: secret-header-cookie", "-w", "%{url_effective}\n", url)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "homehttp://user:<redacted>@127.0.0.1:\(server.port)/home?token=<redacted>\n")
        let log = result.stderrText
        XCTAssertFalse(log.contains("secret"), log)
        XCTAssertFalse(log.contains(Data("user:secret-password".utf8).base64EncodedString()), log)
        for line in ["* ", "GET http://user:<redacted>@127.0.0.1:\(server.port)/login?access_token=<redacted>&page=1",
                     "> GET /login?access_token=<redacted>&page=1 HTTP/1.1", "> Authorization: <redacted>",
                     "> Proxy-Authorization: <redacted>", "< HTTP/1.1 302 Found", "< Location: /home?token=<redacted>",
                     "< Set-Cookie: <redacted>", "response 302, redirect to http://user:<redacted>@127.0.0.1:\(server.port)/home?token=<redacted>",
                     "> GET /home?token=<redacted> HTTP/1.1", "> Cookie: <redacted>", "< HTTP/1.1 200 OK"] {
            XCTAssertTrue(log.contains(line), "missing \(line) in:\n\(log)")
        }
        // The server did get the credentials: only the display hides them.
        XCTAssertEqual(try lastRequest(to: "/login", on: server).header("Authorization"), "Bearer secret-bearer")
        XCTAssertTrue(try lastRequest(to: "/home", on: server).header("Cookie")?.contains("session=secret-session") == true)
    }

    func testRetriesAndFailuresAreShown() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/status?code=503").absoluteString
        let retried = try courier("-v", "--retry", "1", "--retry-delay", "0.1", url)
        XCTAssertEqual(retried.status, 0, retried.stderrText)
        XCTAssertTrue(retried.stderrText.contains("HTTP 503 Service Unavailable (\(url)); retrying in 0.1 s, 0 retries left"),
                      retried.stderrText)
        XCTAssertEqual(retried.stderrText.components(separatedBy: "* ").filter { $0.contains("GET \(url)") }.count, 2,
                       "each attempt is shown: \(retried.stderrText)")

        let refused = try courier("-v", "http://u:secret@127.0.0.1:\(TestServer.unusedPort())/")
        XCTAssertEqual(refused.status, 7)
        XCTAssertTrue(refused.stderrText.contains(" failed: Could not connect to 127.0.0.1:"), refused.stderrText)
        XCTAssertFalse(refused.stderrText.contains("secret"), refused.stderrText)
    }

    func testVerboseIsForSingleRequests() throws {
        assertUsageError(try courier("download", "-v", "http://127.0.0.1:1/a"), mentions: "-v is for single requests")
    }
}
