import Courier
import Foundation
import XCTest

/// `--http1.1`, `--http2`, `--http2-prior-knowledge`, `--unix-socket`, `--limit-rate`, the `-w`
/// variables of the wire and what `-v` says of the protocol and the connection, against nginx;
/// held to the real curl where it is installed.
final class CLIWireTests: CLITestCase {
    override class func tearDown() {
        NginxFixture.tearDownShared()
        super.tearDown()
    }

    /// Every wire variable, `|`-separated, in this order.
    private static let wireVariables = [
        "http_version", "time_namelookup", "time_connect", "time_appconnect", "time_pretransfer", "time_starttransfer",
        "time_redirect", "time_total", "remote_ip", "remote_port", "local_ip", "local_port", "num_connects", "speed_download",
        "speed_upload", "size_header", "size_request", "size_upload",
    ]
    private static let wireFormat = wireVariables.map { "%{\($0)}" }.joined(separator: "|")

    /// `-w`'s values by variable name.
    private func values(_ output: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: zip(Self.wireVariables, output.split(separator: "|", omittingEmptySubsequences: false).map(String.init)))
    }

    func testTheHTTPVersionFlagsAsCurlTakesThem() throws {
        let server = try nginx()
        let ca = server.certificates.authority.path
        let tls = server.tlsURL(NginxServer.helloPath).absoluteString
        let cases: [([String], String, String)] = [
            ([], tls, "2"), (["--http2"], tls, "2"), (["--http1.1"], tls, "1.1"),
            (["--http2-prior-knowledge"], server.h2cURL(NginxServer.helloPath).absoluteString, "2"),
            ([], server.plainURL(NginxServer.helloPath).absoluteString, "1.1"),
            (["--http2"], server.plainURL(NginxServer.helloPath).absoluteString, "1.1"),
            // The last of the three wins, as in curl.
            (["--http2", "--http1.1"], tls, "1.1"),
        ]
        for (flags, url, expected) in cases {
            let arguments = ["--engine", "curl", "-s", "-o", "/dev/null", "--cacert", ca, "-w", "%{http_version}"] + flags + [url]
            let result = try start(arguments).finish()
            XCTAssertEqual(result.status, 0, "\(flags): \(result.stderrText)")
            XCTAssertEqual(result.stdoutText, expected, "\(flags) \(url)")
            if let curl = try RealCurl.run(Array(arguments.dropFirst(2))) {
                XCTAssertEqual(curl.stdoutText, expected, "curl \(flags) \(url)")
            }
        }
    }

    func testTheWireVariablesAreWrittenAsCurlWritesThem() throws {
        let server = try nginx()
        let url = server.tlsURL(NginxServer.smallFile).absoluteString
        let arguments = ["-s", "-o", "/dev/null", "--cacert", server.certificates.authority.path, "-w", Self.wireFormat, url]
        let result = try start(["--engine", "curl"] + arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        let ours = values(result.stdoutText)
        XCTAssertEqual(ours.count, Self.wireVariables.count, result.stdoutText)
        for name in Self.wireVariables where name.hasPrefix("time_") {
            XCTAssertNotNil(ours[name]?.range(of: #"^\d+\.\d{6}$"#, options: .regularExpression), "\(name): \(ours[name] ?? "-")")
        }
        let times = ["time_namelookup", "time_connect", "time_appconnect", "time_pretransfer", "time_starttransfer", "time_total"]
            .compactMap { ours[$0].flatMap(Double.init) }
        XCTAssertEqual(times, times.sorted(), "curl's order")
        XCTAssertEqual(ours["http_version"], "2")
        XCTAssertEqual(ours["remote_ip"], "127.0.0.1")
        XCTAssertEqual(ours["remote_port"], String(server.tlsPort))
        XCTAssertEqual(ours["num_connects"], "1")
        XCTAssertEqual(ours["size_upload"], "0")
        XCTAssertEqual(ours["time_redirect"], "0.000000")
        XCTAssertGreaterThan(Int(ours["speed_download"] ?? "") ?? 0, 0)
        XCTAssertNotNil(Int(ours["local_port"] ?? ""))
        guard let curl = try RealCurl.run(arguments) else { return }
        let theirs = values(curl.stdoutText)
        // The same server, the same response: the same facts, in the same form (the times and
        // the request's size, whose headers differ, aside).
        for name in ["http_version", "remote_ip", "remote_port", "local_ip", "num_connects", "size_header", "size_upload", "time_redirect"] {
            XCTAssertEqual(ours[name], theirs[name], name)
        }
        for name in Self.wireVariables {
            XCTAssertEqual(ours[name]?.contains("."), theirs[name]?.contains("."), "\(name): \(ours[name] ?? "-") vs \(theirs[name] ?? "-")")
        }
    }

    func testJSONHoldsTheWireVariables() throws {
        let server = try nginx()
        let result = try courier("--engine", "curl", "-s", "-o", "/dev/null", "-w", "%{json}", server.plainURL(NginxServer.helloPath).absoluteString)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.stdoutText)
        XCTAssertEqual(object["http_version"] as? String, "1.1")
        XCTAssertEqual(object["remote_ip"] as? String, "127.0.0.1")
        XCTAssertEqual((object["remote_port"] as? NSNumber)?.intValue, server.plainPort)
        XCTAssertEqual((object["num_connects"] as? NSNumber)?.intValue, 1)
        XCTAssertGreaterThan((object["time_starttransfer"] as? NSNumber)?.doubleValue ?? 0, 0)
        XCTAssertGreaterThan((object["size_header"] as? NSNumber)?.intValue ?? 0, 0)
        for name in Self.wireVariables {
            XCTAssertNotNil(object[name], name)
        }
    }

    func testVerboseShowsTheNegotiatedProtocolAndTheConnection() throws {
        let server = try nginx()
        let url = server.tlsURL(NginxServer.helloPath).absoluteString
        let result = try courier("--engine", "curl", "-v", "--cacert", server.certificates.authority.path, url)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let lines = result.stderrText.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("> GET \(NginxServer.helloPath) HTTP/2"), result.stderrText)
        XCTAssertTrue(lines.contains("< HTTP/2 200 "), result.stderrText)
        // libcurl 8.2 and later number the connection, as curl does: `… port 8443 (#0)`.
        XCTAssertTrue(lines.contains { $0.contains("Connected to 127.0.0.1 (127.0.0.1) port \(server.tlsPort)") }, result.stderrText)
        XCTAssertTrue(lines.contains("* using HTTP/2"), result.stderrText)
        XCTAssertFalse(result.stderrText.contains("HTTP/1.1"), result.stderrText)

        // A retry goes over the connection the first attempt opened, and says so.
        let calls = Locked(0)
        server.backend.route("/once-busy") { _, writer in
            let call = calls.withLock { $0 += 1; return $0 }
            writer.respond(status: call == 1 ? 503 : 200, text: call == 1 ? "busy" : "fine")
        }
        let retried = try courier("--engine", "curl", "-v", "--retries", "1", "--retry-delay", "0", "--cacert", server.certificates.authority.path,
                                  server.tlsURL("/app/once-busy").absoluteString)
        XCTAssertEqual(retried.status, 0, retried.stderrText)
        // The first attempt's body stays on stdout, as curl leaves it (it can truncate a file, not a pipe).
        XCTAssertEqual(retried.stdoutText, "busyfine")
        XCTAssertNotNil(retried.stderrText.range(of: #"Re-using existing connection (#[0-9]+ )?with host 127\.0\.0\.1"#,
                                                 options: .regularExpression), retried.stderrText)
        XCTAssertEqual(retried.stderrText.components(separatedBy: "> GET /app/once-busy HTTP/2").count, 3, retried.stderrText)
    }

    func testIncludedHeadsShowTheProtocolAsCurlDoes() throws {
        let server = try nginx()
        let arguments = ["-s", "-i", "--cacert", server.certificates.authority.path, server.tlsURL(NginxServer.helloPath).absoluteString]
        let result = try start(["--engine", "curl"] + arguments).finish()
        XCTAssertTrue(result.stdoutText.hasPrefix("HTTP/2 200 \r\n") || result.stdoutText.hasPrefix("HTTP/2 200 \n"), result.stdoutText)
        if let curl = try RealCurl.run(arguments) {
            XCTAssertTrue(curl.stdoutText.hasPrefix("HTTP/2 200 \r\n"), curl.stdoutText)
        }
    }

    func testUnixSocket() throws {
        let server = try nginx()
        let arguments = ["-s", "--unix-socket", server.socketPath, "-w", "|%{remote_ip}|%{http_version}",
                         server.socketURL(NginxServer.helloPath).absoluteString]
        let result = try start(["--engine", "curl"] + arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, NginxServer.helloBody + "|\(server.socketPath)|1.1")
        if let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.stdoutText, result.stdoutText)
        }
    }

    func testLimitRate() throws {
        let server = try nginx()
        // 256 KiB at 128 KiB/s: two seconds' worth; well over half a second even with the burst
        // libcurl 7.x lets through first (only this lower bound is checked).
        let result = try courier("--engine", "curl", "-s", "-o", "/dev/null", "--limit-rate", "128K", "-w", "%{time_total}",
                                 server.plainURL(NginxServer.smallFile).absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertGreaterThanOrEqual(Double(result.stdoutText) ?? 0, 0.5, result.stdoutText)
        assertUsageError(try courier("--limit-rate", "fast", "http://127.0.0.1:1/"), mentions: "--limit-rate needs a rate")
    }

    func testTheWireFlagsThatNeedLibcurlAreRefusedOnURLSession() throws {
        for flags in [["--http1.1"], ["--http2-prior-knowledge"], ["--unix-socket", "/tmp/x.sock"], ["--limit-rate", "1M"]] {
            assertUsageError(try courier(["--engine", "urlsession"] + flags + ["http://127.0.0.1:1/"]),
                             mentions: "\(flags[0]) needs the curl engine")
        }
        // --http2 is what URLSession does anyway.
        let server = try nginx()
        let result = try courier("--engine", "urlsession", "--http2", server.plainURL(NginxServer.helloPath).absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
    }

    func testVersionSaysWhetherRequestsUseHTTP2() throws {
        let result = try courier("--version")
        XCTAssertTrue(result.stdoutText.contains("HTTP/2 yes") || result.stdoutText.contains("HTTP/2 no (requests use HTTP/1.1)")
                      || result.stdoutText.contains("the curl engine is unavailable"), result.stdoutText)
    }
}

extension CLITestCase {
    /// Runs `courier arguments` to the end (the array form).
    func courier(_ arguments: [String], environment: [String: String] = [:], file: StaticString = #filePath,
                 line: UInt = #line) throws -> CLIResult {
        try start(arguments, environment: environment, file: file, line: line).finish(file: file, line: line)
    }
}
