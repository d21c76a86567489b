@testable import CourierCLI
import Courier
import Foundation
import XCTest

/// `-w FORMAT`: what a script reads on stdout after the body, exactly, on success and failure.
final class CLIWriteOutTests: CLITestCase {
    private func routes(on server: TestServer) {
        server.route("/made") { _, writer in
            writer.respond(status: 201, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data("abc".utf8))
        }
        server.route("/moved") { _, writer in writer.respond(status: 301, headers: ["Location": "/made"]) }
    }

    func testVariablesAreExactAndFollowTheBody() throws {
        let server = try makeServer()
        routes(on: server)
        let url = server.url("/made").absoluteString
        let result = try courier(url, "-w", "|%{http_code}|%{response_code}|%{size_download}|%{content_type}|%{num_redirects}|%{num_retries}|%{method}|%{exitcode}|%{errormsg}|%{url_effective}\\n")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "abc|201|201|3|text/plain; charset=utf-8|0|0|GET|0||\(url)\n")

        let timed = try courier(url, "--write-out", "%{time_total}")
        let time = String(timed.stdoutText.dropFirst(3))
        XCTAssertNotNil(time.range(of: #"^[0-9]+\.[0-9]{6}$"#, options: .regularExpression), time)
    }

    func testRedirectsAndTheEffectiveURLAreThoseOfTheLastRequest() throws {
        let server = try makeServer()
        routes(on: server)
        let result = try courier("-sL", server.url("/moved").absoluteString, "-w", "\n%{num_redirects} %{http_code} %{url_effective}")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "abc\n1 201 \(server.url("/made").absoluteString)")
        // Without -L the redirect is the answer, as in curl: its Location is %{redirect_url}.
        let unfollowed = try courier("-s", server.url("/moved").absoluteString, "-w", "%{num_redirects} %{http_code} %{redirect_url}")
        XCTAssertEqual(unfollowed.stdoutText, "0 301 \(server.url("/made").absoluteString)")
        // A Location without a path is written with `/`, as libcurl writes every URL it parses.
        server.route("/portal") { _, writer in writer.respond(status: 302, headers: ["Location": "https://portal.invalid"]) }
        let arguments = ["-s", "-w", "%{redirect_url}", server.url("/portal").absoluteString]
        XCTAssertEqual(try courier(arguments).stdoutText, "https://portal.invalid/")
        if let curl = try RealCurl.run(arguments) { XCTAssertEqual(curl.stdoutText, "https://portal.invalid/", "as curl writes it") }
    }

    private func courier(_ arguments: [String]) throws -> CLIResult {
        try start(arguments).finish()
    }

    func testJSONHoldsEveryVariableAndParses() throws {
        let server = try makeServer()
        routes(on: server)
        let result = try courier(server.url("/made").absoluteString, "-o", try makeTemporaryDirectory().appendingPathComponent("f").path,
                                 "-w", "%{json}")
        XCTAssertEqual(result.status, 0, result.stderrText)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.stdoutText)
        // curl 7.88.1's members (`curl -w '%{json}'`), no more, no fewer.
        XCTAssertEqual(Set(object.keys), Set(Self.curlJSONMembers))
        XCTAssertEqual(object["http_code"] as? Int, 201)
        XCTAssertEqual(object["response_code"] as? Int, 201)
        XCTAssertEqual(object["size_download"] as? Int, 3, "the bytes received")
        XCTAssertEqual(object["exitcode"] as? Int, 0)
        XCTAssertEqual(object["num_redirects"] as? Int, 0)
        XCTAssertEqual(object["method"] as? String, "GET")
        XCTAssertEqual(object["content_type"] as? String, "text/plain; charset=utf-8")
        XCTAssertEqual(object["url_effective"] as? String, server.url("/made").absoluteString)
        XCTAssertTrue(object["errormsg"] is NSNull)
        XCTAssertNotNil(object["time_total"] as? Double)
        // The wire's facts come from the transfer's metrics: all of them on the curl engine; on
        // URLSession on Linux, which reports neither the protocol nor the connection, what curl
        // says when it does not know either.
        if Network().engine == .curl {
            XCTAssertEqual(object["http_version"] as? String, "1.1")
            XCTAssertEqual(object["remote_ip"] as? String, "127.0.0.1")
            XCTAssertEqual(object["remote_port"] as? Int, server.port)
            XCTAssertEqual(object["num_connects"] as? Int, 1)
            XCTAssertGreaterThan(object["time_connect"] as? Double ?? 0, 0)
        } else {
            XCTAssertEqual(object["http_version"] as? String, "0")
            XCTAssertEqual(object["remote_ip"] as? String, "")
            XCTAssertEqual(object["time_connect"] as? Double, 0)
        }
    }

    /// The members of curl 7.88.1's `%{json}`, measured.
    static let curlJSONMembers = [
        "certs", "content_type", "errormsg", "exitcode", "filename_effective", "ftp_entry_path", "http_code", "http_connect",
        "http_version", "local_ip", "local_port", "method", "num_certs", "num_connects", "num_headers", "num_redirects",
        "proxy_ssl_verify_result", "redirect_url", "referer", "remote_ip", "remote_port", "response_code", "scheme",
        "size_download", "size_header", "size_request", "size_upload", "speed_download", "speed_upload", "ssl_verify_result",
        "time_appconnect", "time_connect", "time_namelookup", "time_pretransfer", "time_redirect", "time_starttransfer",
        "time_total", "url", "url_effective", "urlnum", "curl_version",
    ]

    func testSizeDownloadIsTheBytesReceivedWhereverTheyWent() throws {
        let server = try makeServer()
        routes(on: server)
        for output in ["/dev/null", try makeTemporaryDirectory().appendingPathComponent("f").path] {
            let result = try courier("-s", "-o", output, "-w", "%{size_download} %{json}", server.url("/made").absoluteString)
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertTrue(result.stdoutText.hasPrefix("3 {"), result.stdoutText)
            XCTAssertTrue(result.stdoutText.contains("\"size_download\":3,"), result.stdoutText)
            XCTAssertTrue(result.stdoutText.contains("\"filename_effective\":\"\(output)\""), result.stdoutText)
        }
    }

    func testAFailureIsReportedWithItsExitCodeAndNoCredentials() throws {
        let url = "http://u:secret@127.0.0.1:\(TestServer.unusedPort())/x?access_token=secret"
        let result = try courier(url, "-w", "%{http_code} %{exitcode} %{url_effective} %{errormsg}\n")
        XCTAssertEqual(result.status, 7, result.stderrText)
        XCTAssertTrue(result.stdoutText.hasPrefix("000 7 http://u:<redacted>@127.0.0.1:"), result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains("/x?access_token=<redacted> could not connect to 127.0.0.1"), result.stdoutText)
        XCTAssertFalse(result.stdoutText.contains("secret") || result.stderrText.contains("secret"))

        let server = try makeServer().withStandardRoutes()
        let failed = try courier("-f", server.url("/status?code=404").absoluteString, "-w", "%{http_code} %{exitcode}")
        XCTAssertEqual(failed.status, 22)
        XCTAssertEqual(failed.stdoutText, "404 22")
    }

    func testRetriesAreCounted() throws {
        let server = try makeServer()
        server.routeBusyOnce("/flaky", then: "done")
        // --retries is courier's older spelling of --retry. As curl, the 503's own body is
        // printed before the retry's.
        let result = try courier("-s", "--retries", "2", "--retry-delay", "1", server.url("/flaky").absoluteString,
                                 "-w", " %{num_retries} %{http_code}")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "busydone 1 200")
    }

    func testEscapesPercentsAndAFormatFile() throws {
        let server = try makeServer()
        routes(on: server)
        let output = try makeTemporaryDirectory().appendingPathComponent("body").path
        let escaped = try courier("-o", output, server.url("/made").absoluteString, "-w", #"a\tb%%c\\%{http_code}\r\n"#)
        XCTAssertEqual(escaped.stdoutText, "a\tb%c\\201\r\n")

        let format = try makeFile(named: "format.txt", content: Data("code=%{http_code}\n".utf8))
        let fromFile = try courier("-o", output, server.url("/made").absoluteString, "-w", "@" + format.path)
        XCTAssertEqual(fromFile.stdoutText, "code=201\n")
    }

    func testAnUnknownVariablePrintsNothingAndAWarningAsInCurl() throws {
        let server = try makeServer()
        routes(on: server)
        let result = try courier(server.url("/made").absoluteString, "-o", "/dev/null", "-w", "%{http_cod}|%{http_code}")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "|201")
        XCTAssertTrue(result.stderrText.contains("unknown --write-out variable: 'http_cod'"), result.stderrText)
        // -s silences the warning, as in curl.
        XCTAssertEqual(try courier("-s", server.url("/made").absoluteString, "-o", "/dev/null", "-w", "%{http_cod}").stderr, Data())
        XCTAssertEqual(try courier("http://127.0.0.1:1/", "-w", "@/no/such/format").status, 26)
    }

    func testStreamsHeadersAndOnError() throws {
        let server = try makeServer()
        routes(on: server)
        let url = server.url("/made").absoluteString
        let split = try courier("-s", "-o", "/dev/null", "-w", "%{stderr}to stderr %{stdout}%header{content-type}", url)
        XCTAssertEqual(split.stdoutText, "text/plain; charset=utf-8")
        XCTAssertEqual(split.stderrText, "to stderr ")
        let onError = "ok%{onerror} failed: %{exitcode}"
        XCTAssertEqual(try courier("-s", "-o", "/dev/null", "-w", onError, url).stdoutText, "ok")
        XCTAssertEqual(try courier("-s", "-w", onError, "http://127.0.0.1:\(TestServer.unusedPort())/").stdoutText, "ok failed: 7")
    }
}
