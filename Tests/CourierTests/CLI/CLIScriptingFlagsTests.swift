@testable import CourierCLI
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// curl's request flags in `courier`, end to end: what the server saw for `-X`, `-G`,
/// `--data-urlencode`, `--data-raw`, `-A`, `-e`, `-r`, and what the limits (`--max-redirs`,
/// `--max-filesize`, `--connect-timeout`, `--retry-delay`, `--retry-max-time`) and
/// `--json-output` do.
final class CLIScriptingFlagsTests: CLITestCase {
    // MARK: - Method and body

    func testRequestSendsAnyMethodUpperCased() throws {
        let server = try makeServer().withStandardRoutes()
        for (arguments, method) in [(["-X", "PURGE"], "PURGE"), (["--request=propfind"], "PROPFIND"), (["-XDELETE"], "DELETE")] {
            let result = try start(arguments + [server.url("/echo").absoluteString]).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertEqual(try lastRequest(to: "/echo", on: server).method, method)
        }
        // With a body: the method named, the body sent.
        let put = try courier("-X", "PUT", "-d", "a=1", server.url("/echo").absoluteString)
        XCTAssertEqual(put.status, 0, put.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(request.body, Data("a=1".utf8))
        // -X HEAD behaves as the head command: the head is printed, no body expected.
        let head = try courier("-X", "HEAD", server.url("/hello").absoluteString)
        XCTAssertEqual(head.status, 0, head.stderrText)
        XCTAssertTrue(head.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"), head.stdoutText)
    }

    func testRequestMethodMistakesAreUsageErrors() throws {
        assertUsageError(try courier("post", "-X", "PUT", "http://127.0.0.1:1/"), mentions: "name different methods")
        assertUsageError(try courier("-X", "GE T", "http://127.0.0.1:1/"), mentions: "-X needs a method name")
        assertUsageError(try courier("-X", "GET", "-d", "a=1", "http://127.0.0.1:1/"), mentions: "-G to send it in the URL")
        assertUsageError(try courier("download", "-X", "PUT", "http://127.0.0.1:1/a"), mentions: "-X is for single requests")
        // The command and -X may agree.
        guard case let .request(plan) = try Invocation(ArgumentParser.parse(["put", "-X", "put", "http://h/"])) else {
            return XCTFail("not a request")
        }
        XCTAssertEqual(plan.method, .put)
    }

    func testGetSendsTheDataInTheQuery() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("-G", "-d", "a=1", "--data-urlencode", "q=hello world&more", "--data-raw", "@raw",
                                 server.url("/echo?z=0").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "GET")
        // --data-urlencode makes a space '+', as curl 7.88 does.
        XCTAssertEqual(request.query, "z=0&a=1&q=hello+world%26more&@raw")
        XCTAssertEqual(request.body, Data())
        // Spaces in plain -d text are escaped for the URL.
        XCTAssertEqual(try courier("--get", "-d", "q=a b", server.url("/echo").absoluteString).status, 0)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).query, "q=a%20b")

        assertUsageError(try courier("-G", "--json", "{}", server.url("/echo").absoluteString), mentions: "-G sends --data in the URL")
    }

    func testDataURLEncodeAndDataRawJoinInOrder() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeFile(named: "value.txt", content: Data("1+1=2\n".utf8))
        let result = try courier(
            "-d", "first=1", "--data-urlencode", "a=b c&d", "--data-urlencode", "=x y", "--data-urlencode", "plain text",
            "--data-urlencode", "f@" + file.path, "--data-urlencode", "@" + file.path, "--data-raw", "@not-a-file", "-d", "last=2",
            server.url("/echo").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.header("Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self),
                       "first=1&a=b+c%26d&x+y&plain+text&f=1%2B1%3D2%0A&1%2B1%3D2%0A&@not-a-file&last=2")

        // A file that cannot be read makes its piece empty, with a warning, as in curl.
        let missing = try courier("--data-urlencode", "f@/no/such/file", "-d", "b=1", server.url("/echo").absoluteString)
        XCTAssertEqual(missing.status, 0, missing.stderrText)
        XCTAssertTrue(missing.stderrText.contains("/no/such/file"), missing.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).body, Data("&b=1".utf8))
    }

    // MARK: - Headers

    func testUserAgentAndRefererReachTheServerAndHeaderOptionsWin() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("-A", "courier-test/1.0", "--referer", "https://from.example/page", server.url("/echo").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        var request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.header("User-Agent"), "courier-test/1.0")
        XCTAssertEqual(request.header("Referer"), "https://from.example/page")

        // As in curl, -H names the header outright and wins over -A / -e.
        XCTAssertEqual(try courier("-H", "User-Agent: from-H", "-A", "from-A", "-e", "r", "-H", "referer: R2",
                                   server.url("/echo").absoluteString).status, 0)
        request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.headerValues("User-Agent"), ["from-H"])
        XCTAssertEqual(request.headerValues("Referer"), ["R2"])

        // Downloads send them too.
        let folder = try makeTemporaryDirectory()
        XCTAssertEqual(try courier("download", "-A", "fetcher/2", "-d", folder.path, server.url("/hello").absoluteString).status, 0)
        XCTAssertEqual(try lastRequest(to: "/hello", on: server).header("User-Agent"), "fetcher/2")

        assertUsageError(try courier("-A", "evil\r\nX-Injected: 1", server.url("/echo").absoluteString), mentions: "-A must not contain line breaks")
    }

    func testRangeAsksForPartOfTheBody() throws {
        let server = try makeServer()
        let content = Data("0123456789".utf8)
        try serveFile(content, at: "/file", on: server)

        let result = try courier("-r", "2-5", server.url("/file").absoluteString, "-w", "\n%{http_code}")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try lastRequest(to: "/file", on: server).header("Range"), "bytes=2-5")
        XCTAssertEqual(result.stdoutText, "2345\n206")

        // To a file: the range is what is saved; no resume logic gets in the way.
        let output = try makeTemporaryDirectory().appendingPathComponent("part.bin")
        let saved = try courier("--range", "-3", "-o", output.path, server.url("/file").absoluteString)
        XCTAssertEqual(saved.status, 0, saved.stderrText)
        XCTAssertEqual(try Data(contentsOf: output), Data("789".utf8))
        XCTAssertEqual(try lastRequest(to: "/file", on: server).header("Range"), "bytes=-3")

        assertUsageError(try courier("-r", "bytes=1-2", server.url("/file").absoluteString), mentions: "-r needs a byte range")
    }

    // MARK: - Limits

    func testMaxRedirsLimitsTheRedirectsFollowed() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/r1") { _, writer in writer.respond(status: 302, headers: ["Location": "/r2"]) }
        server.route("/r2") { _, writer in writer.respond(status: 302, headers: ["Location": "/hello"]) }

        let refused = try courier("-L", "--max-redirs", "1", server.url("/r1").absoluteString)
        XCTAssertEqual(refused.status, 47, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("too many redirects"), refused.stderrText)
        XCTAssertNil(server.receivedRequests.first { $0.path == "/hello" }, "the second redirect was not followed")

        for limit in ["2", "-1"] {
            let followed = try courier("-L", "--max-redirs", limit, server.url("/r1").absoluteString)
            XCTAssertEqual(followed.status, 0, followed.stderrText)
            XCTAssertEqual(followed.stdoutText, "hello")
        }
        assertUsageError(try courier("--max-redirs", "-2", server.url("/r1").absoluteString), mentions: "--max-redirs")
        // Without -L nothing is followed, whatever --max-redirs says: the 302 is the answer.
        let unfollowed = try courier("--max-redirs", "5", "-w", "%{http_code}", server.url("/r1").absoluteString)
        XCTAssertEqual(unfollowed.status, 0, unfollowed.stderrText)
        XCTAssertEqual(unfollowed.stdoutText, "302")
    }

    func testMaxFilesizeFailsLargerBodiesWithExit63() throws {
        let server = try makeServer().withStandardRoutes()
        let output = try makeTemporaryDirectory().appendingPathComponent("out.bin")

        let toStdout = try courier("--max-filesize", "1000", server.url("/bytes?n=2000").absoluteString)
        XCTAssertEqual(toStdout.status, 63, toStdout.stderrText)
        XCTAssertEqual(toStdout.stdout, Data())
        XCTAssertTrue(toStdout.stderrText.contains("larger than --max-filesize (1000 bytes)"), toStdout.stderrText)

        let toFile = try courier("--max-filesize", "1000", "-o", output.path, server.url("/bytes?n=2000").absoluteString)
        XCTAssertEqual(toFile.status, 63, toFile.stderrText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))

        // 1k is 1024 bytes: a 1000-byte body fits, on stdout and in a file.
        let fits = try courier("--max-filesize", "1k", server.url("/bytes?n=1000").absoluteString)
        XCTAssertEqual(fits.status, 0, fits.stderrText)
        XCTAssertEqual(fits.stdout.count, 1000)
        XCTAssertEqual(try courier("--max-filesize", "1K", "-o", output.path, server.url("/bytes?n=1000").absoluteString).status, 0)
        XCTAssertEqual(try Data(contentsOf: output).count, 1000)

        assertUsageError(try courier("--max-filesize", "lots", server.url("/hello").absoluteString), mentions: "--max-filesize needs a size")
        XCTAssertEqual(OptionTable.byteCount("2M"), 2 << 20)
        XCTAssertEqual(OptionTable.byteCount("3g"), 3 << 30)
        XCTAssertNil(OptionTable.byteCount("9999999999G"))
    }

    func testConnectTimeoutGivesUpOnAConnectionThatIsNeverAccepted() throws {
        let listener = try FullBacklogListener()
        addTeardownBlock { listener.close() }
        let result = try courier("--connect-timeout", "0.5", listener.url.absoluteString)
        XCTAssertEqual(result.status, 28, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("could not connect to 127.0.0.1 within 0.5 s (--connect-timeout)"), result.stderrText)
        if let curl = try RealCurl.run(["-sS", "--connect-timeout", "0.5", listener.url.absoluteString]) {
            XCTAssertEqual(curl.status, 28, "curl agrees")
        }
        assertUsageError(try courier("--connect-timeout", "0", "http://127.0.0.1:1/"), mentions: "--connect-timeout needs a positive number")
    }

    func testRetryDelayReplacesTheJitteredBackoff() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("--retries", "1", "--retry-delay", "0.25", "-v", server.url("/status?code=503").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/status" }.count, 2)
        XCTAssertTrue(result.stderrText.contains("retrying in 0.25 s"), result.stderrText)
    }

    func testRetryMaxTimeStopsRetryingOnceItHasPassed() throws {
        let server = try makeServer().withStandardRoutes()
        // As curl: the first retry is decided at once (within the 0.5 s), the next one 1 s later
        // (past them). Each attempt's 503 body is printed, as curl prints it.
        let cut = try courier("--retry", "3", "--retry-delay", "1", "--retry-max-time", "0.5", server.url("/status?code=503").absoluteString)
        XCTAssertEqual(cut.status, 0, cut.stderrText)
        XCTAssertEqual(cut.stdoutText, "status 503 bodystatus 503 body")
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/status" }.count, 2)

        // Within the time, the retries are made.
        server.resetStatistics()
        let allowed = try courier("-s", "--retries", "2", "--retry-delay", "0.1", "--retry-max-time", "60", server.url("/status?code=503").absoluteString)
        XCTAssertEqual(allowed.status, 0, allowed.stderrText)
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/status" }.count, 3)
    }

    // MARK: - --json-output

    func testJSONOutputPrintsStatusHeadersAndBodyAsOneObject() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("--json-output", server.url("/status?code=404").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertTrue(result.stdoutText.hasSuffix("}\n"))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        XCTAssertEqual(object["status"] as? Int, 404)
        XCTAssertEqual((object["headers"] as? [String: String])?["X-Reason"], "test")
        XCTAssertEqual(object["body"] as? String, "status 404 body")
        XCTAssertNil(object["body_base64"])

        // --fail keeps the JSON for the script and sets the exit status.
        let failed = try courier("--json-output", "-f", server.url("/status?code=500").absoluteString)
        XCTAssertEqual(failed.status, 22, failed.stderrText)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: failed.stdout) as? [String: Any])?["status"] as? Int, 500)
    }

    func testJSONOutputCarriesABinaryBodyAsBase64AndLeavesTheJSONBodyFlagAlone() throws {
        let server = try makeServer().withStandardRoutes()
        let bytes = Data([0, 1, 2, 255])
        server.route("/binary") { _, writer in writer.respond(status: 200, body: bytes) }
        let binary = try courier("--json-output", server.url("/binary").absoluteString)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: binary.stdout) as? [String: Any])
        XCTAssertTrue(object["body"] is NSNull)
        XCTAssertEqual(object["body_base64"] as? String, bytes.base64EncodedString())

        // --json is curl's request-body flag; both together: a JSON body out, a JSON object back.
        let both = try courier("--json", #"{"name":"pen"}"#, "--json-output", server.url("/echo").absoluteString)
        XCTAssertEqual(both.status, 0, both.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).body, Data(#"{"name":"pen"}"#.utf8))
        let echoed = try XCTUnwrap(JSONSerialization.jsonObject(with: both.stdout) as? [String: Any])
        XCTAssertEqual(echoed["body"] as? String, #"{"name":"pen"}"#)
        XCTAssertEqual((echoed["headers"] as? [String: String])?["X-Method"], "POST")

        assertUsageError(try courier("--json-output", "-i", server.url("/echo").absoluteString), mentions: "--json-output")
    }

    // MARK: - Documentation

    func testTheCommandLineGuideDocumentsEveryOption() throws {
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Docs/CommandLine.md")
        let text = try String(contentsOf: guide.standardizedFileURL, encoding: .utf8)
        for spec in OptionTable.all {
            if let long = spec.long { XCTAssertTrue(text.contains("--" + long), "Docs/CommandLine.md lacks --\(long)") }
            if let short = spec.short { XCTAssertTrue(text.contains("-\(short)"), "Docs/CommandLine.md lacks -\(short)") }
        }
    }
}
