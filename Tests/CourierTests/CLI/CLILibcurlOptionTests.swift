import Courier
import Foundation
import XCTest

/// The options libcurl implements, which courier hands to it on the curl engine (`--resolve`,
/// `--connect-to`, `--noproxy`, `-p`, `-U`, `--tr-encoding`, `--netrc…`, `--ignore-content-length`)
/// and refuses on the URLSession engine with curl's exit code 4; and `-z`, which courier turns into the header
/// libcurl sends. Where the `curl` command is installed, the same line must send the same.
final class CLILibcurlOptionTests: CLITestCase {
    private var usesCurl: Bool { Network.Engine.automatic.resolved == .curl }

    /// Runs the line with courier (and with curl, when installed and `withCurl`), and returns
    /// the `/echo` request each sent (curl's second).
    private func echoed(_ arguments: [String], on server: TestServer, withCurl: Bool = true,
                        file: StaticString = #filePath, line: UInt = #line) throws -> [ServerRequest] {
        let result = try start(["-s"] + arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText, file: file, line: line)
        var requests = [try lastRequest(to: "/echo", on: server, file: file, line: line)]
        if withCurl, let curl = try RealCurl.run(["-s", "-o", "/dev/null"] + arguments) {
            XCTAssertEqual(curl.status, 0, "curl: \(curl.stderrText)", file: file, line: line)
            requests.append(try lastRequest(to: "/echo", on: server, file: file, line: line))
        }
        return requests
    }

    /// On URLSession: exit 4 (curl's "not built in"), a sentence naming the option, nothing sent.
    private func assertRefused(_ arguments: [String], naming option: String, on server: TestServer,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try start(arguments).finish()
        XCTAssertEqual(result.status, 4, result.stderrText, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains(option) && result.stderrText.contains("curl engine"), result.stderrText,
                      file: file, line: line)
        XCTAssertEqual(server.requestCount, 0, "nothing sent", file: file, line: line)
    }

    func testResolveAndConnectToReachTheServerUnderAnotherName() throws {
        let server = try makeServer().withStandardRoutes()
        let name = "courier-resolve.invalid"
        let resolve = ["--resolve", "\(name):\(server.port):127.0.0.1", "http://\(name):\(server.port)/echo"]
        let connectTo = ["--connect-to", "\(name):80:127.0.0.1:\(server.port)", "http://\(name)/echo"]
        guard usesCurl else {
            try assertRefused(resolve, naming: "--resolve", on: server)
            try assertRefused(connectTo, naming: "--connect-to", on: server)
            return
        }
        for request in try echoed(resolve, on: server) {
            XCTAssertEqual(request.header("Host"), "\(name):\(server.port)")
        }
        for request in try echoed(connectTo, on: server) {
            XCTAssertEqual(request.header("Host"), name)
        }
        // An entry libcurl cannot read: curl's CURLE_SETOPT_OPTION_SYNTAX, 49, from libcurl 7.78.0.
        // Older ones differ among themselves (measured: 7.68.0 says 49, 7.74.0 says it cannot
        // resolve the host, 6); either way nothing is sent.
        let bad = ["-s", "--connect-to", "::example.com:example.com", "http://\(name):\(server.port)/echo"]
        let requestsBefore = server.requestCount
        let status = try start(bad).finish().status
        if (Network.Engine.curlFeatures?.versionNumber ?? 0) >= 0x074E00 {
            XCTAssertEqual(status, 49)
        } else {
            XCTAssertTrue([6, 49].contains(status), "exit \(status)")
        }
        XCTAssertEqual(server.requestCount, requestsBefore, "nothing sent")
        if RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = try RealCurl.run(bad) { XCTAssertEqual(curl.status, 49) }
    }

    func testProxyUserNoproxyAndProxytunnel() throws {
        let server = try makeServer().withStandardRoutes()
        let proxy = try makeProxy()
        let origin = "http://\(ProxyTests.originHost)/hello"
        let user = ["-x", "127.0.0.1:\(proxy.port)", "-U", "agent:secret", origin]
        guard usesCurl else {
            try assertRefused(user, naming: "--proxy-user", on: proxy)
            try assertRefused(["--noproxy", "*", server.url("/echo").absoluteString], naming: "--noproxy", on: server)
            return
        }
        let proxied = try start(user).finish()
        XCTAssertEqual(proxied.stdoutText, "proxied for \(ProxyTests.originHost)", proxied.stderrText)
        XCTAssertEqual(try lastRequest(to: "/hello", on: proxy).header("Proxy-Authorization"), "Basic YWdlbnQ6c2VjcmV0")

        // --noproxy names the origin: straight to it, which resolves nowhere (exit 6, as curl).
        let direct = try start(["-x", "127.0.0.1:\(proxy.port)", "--noproxy", ".invalid", origin]).finish()
        XCTAssertEqual(direct.status, 6, direct.stderrText)
        XCTAssertEqual(proxy.requestCount, 1)

        // -p: even plain http goes through a CONNECT tunnel.
        let tunnel = try makeConnectProxy()
        let tunnelled = try courier("-p", "-x", "127.0.0.1:\(tunnel.port)", server.url("/echo").absoluteString)
        XCTAssertEqual(tunnelled.status, 0, tunnelled.stderrText)
        XCTAssertEqual(tunnel.connectRequests, ["CONNECT 127.0.0.1:\(server.port) HTTP/1.1"])
    }

    func testTrEncodingAndNetrc() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo").absoluteString
        let netrc = try makeFile(named: "netrc", content: Data("machine 127.0.0.1 login robot password hunter2\n".utf8))
        guard usesCurl else {
            try assertRefused(["--tr-encoding", url], naming: "--tr-encoding", on: server)
            try assertRefused(["--netrc-file", netrc.path, url], naming: "--netrc-file", on: server)
            return
        }
        for request in try echoed(["--tr-encoding", url], on: server) {
            XCTAssertEqual(request.header("TE"), "gzip")
            // libcurl's TE lines after its User-Agent and Accept, as curl sends them.
            XCTAssertEqual(request.headers.map(\.name), ["Host", "User-Agent", "Accept", "Connection", "TE"])
        }
        for request in try echoed(["--netrc-file", netrc.path, url], on: server) {
            XCTAssertEqual(request.header("Authorization"), "Basic cm9ib3Q6aHVudGVyMg==")
        }
        // --netrc-optional with no entry for the host: no credentials, no failure.
        let other = try makeFile(named: "netrc", content: Data("machine elsewhere.invalid login a password b\n".utf8))
        for request in try echoed(["--netrc-optional", "--netrc-file", other.path, url], on: server) {
            XCTAssertNil(request.header("Authorization"))
        }
    }

    func testTimeConditionSendsCurlsHeader() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo").absoluteString
        for request in try echoed(["-z", "dec 12 12:00:00 1999 GMT", url], on: server) {
            XCTAssertEqual(request.header("If-Modified-Since"), "Sun, 12 Dec 1999 12:00:00 GMT")
        }
        for request in try echoed(["--time-cond", "-Sun, 06 Nov 1994 08:49:37 GMT", url], on: server) {
            XCTAssertEqual(request.header("If-Unmodified-Since"), "Sun, 06 Nov 1994 08:49:37 GMT")
            XCTAssertNil(request.header("If-Modified-Since"))
        }
        let file = try makeFile(named: "stamp", content: Data())
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: file.path)
        for request in try echoed(["-z", file.path, url], on: server) {
            XCTAssertEqual(request.header("If-Modified-Since"), "Sun, 09 Sep 2001 01:46:40 GMT", "the file's time")
        }
        // Neither a date nor a file: no condition (curl warns, and sends the request).
        for request in try echoed(["-z", "not a date", url], on: server) {
            XCTAssertNil(request.header("If-Modified-Since"))
        }
    }

    func testDigestAndAnyauthLetLibcurlAnswerTheChallenge() throws {
        let server = try makeServer()
        server.routeDigestLogin("/login")
        let url = server.url("/login").absoluteString
        guard usesCurl else {
            try assertRefused(["--digest", "-u", "robot:hunter2", url], naming: "--digest", on: server)
            try assertRefused(["--anyauth", "-u", "robot:hunter2", url], naming: "--anyauth", on: server)
            try assertRefused(["--ntlm", "-u", "robot:hunter2", url], naming: "--ntlm", on: server)
            return
        }
        for method in ["--digest", "--anyauth"] {
            let arguments = ["-s", "-i", method, "-u", "robot:hunter2", url]
            let result = try start(arguments).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            // Both heads, as curl writes them; only the answer's body.
            XCTAssertTrue(result.stdoutText.hasPrefix("HTTP/1.1 401 "), result.stdoutText)
            XCTAssertTrue(result.stdoutText.contains("\r\n\r\nHTTP/1.1 200 OK\r\n"), result.stdoutText)
            XCTAssertTrue(result.stdoutText.hasSuffix("\r\n\r\nwelcome"), result.stdoutText)
            XCTAssertFalse(result.stdoutText.contains("denied"), result.stdoutText)
            let login = try lastRequest(to: "/login", on: server)
            XCTAssertTrue(login.header("Authorization")?.hasPrefix("Digest username=\"robot\"") ?? false, "\(method)")
            if let curl = try RealCurl.run(arguments) {
                XCTAssertEqual(curl.stdoutText.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression),
                               result.stdoutText.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression),
                               "as curl writes it (\(method))")
            }
        }
        // A POST to a server that asks nothing: libcurl's first request goes empty, is answered,
        // and the request with the body follows; curl writes both heads, the last body only.
        server.route("/open") { request, writer in
            writer.respond(status: 200, text: "open:" + String(decoding: request.body, as: UTF8.self))
        }
        let post = ["-s", "-i", "--digest", "-u", "robot:hunter2", "-d", "payload", server.url("/open").absoluteString]
        let posted = try start(post).finish()
        XCTAssertEqual(posted.stdoutText.components(separatedBy: "HTTP/1.1 200 OK\r\n").count, 3, posted.stdoutText)
        XCTAssertTrue(posted.stdoutText.hasSuffix("\r\n\r\nopen:payload"), posted.stdoutText)
        XCTAssertEqual(server.receivedRequests.filter { $0.path == "/open" }.map(\.body), [Data(), Data("payload".utf8)])
        if let curl = try RealCurl.run(post) {
            XCTAssertEqual(curl.stdoutText.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression),
                           posted.stdoutText.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression))
        }
        // --basic after --digest: courier's own Basic line again, no challenge round.
        server.resetStatistics()
        let basic = try courier("-s", "--digest", "--basic", "-u", "robot:hunter2", url)
        XCTAssertEqual(basic.stdoutText, "denied")
        XCTAssertEqual(try lastRequest(to: "/login", on: server).header("Authorization"), "Basic cm9ib3Q6aHVudGVyMg==")
        XCTAssertEqual(server.requestCount, 1)
    }
}

extension CLILibcurlOptionTests {
    func testIgnoreContentLengthReadsToTheClose() throws {
        let server = try makeServer()
        server.route("/long") { _, writer in
            writer.write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabcdef".utf8))
            writer.closeConnection()
        }
        let url = server.url("/long").absoluteString
        guard Network.Engine.automatic.resolved == .curl else {
            try assertRefused(["--ignore-content-length", url], naming: "--ignore-content-length", on: server)
            return
        }
        let whole = try courier("-s", "--ignore-content-length", url)
        XCTAssertEqual(whole.status, 0, whole.stderrText)
        XCTAssertEqual(whole.stdoutText, "abcdef")
        XCTAssertEqual(try courier("-s", url).stdoutText, "ab", "without it, the length is believed")
        if let curl = try RealCurl.run(["-s", "--ignore-content-length", url]) {
            XCTAssertEqual(curl.stdoutText, "abcdef", "as curl reads it")
        }
    }
}

extension CLILibcurlOptionTests {
    /// `-z` not met by the answer's `Last-Modified`: its body is dropped, no `-o` file is made or
    /// changed, and `%{response_code}` says 304, libcurl's simulated one; on every engine.
    func testATimeConditionTheAnswerDoesNotMeetDropsItsBody() throws {
        let server = try makeServer()
        server.route("/doc") { _, writer in
            writer.respond(status: 200, headers: ["Last-Modified": "Sun, 12 Dec 1999 10:00:00 GMT"], text: "document")
        }
        let url = server.url("/doc").absoluteString
        let cases: [([String], String)] = [
            (["-z", "dec 12 11:00:00 1999 GMT"], "304"),            // not modified since: dropped
            (["-z", "dec 12 09:00:00 1999 GMT"], "document200"),    // modified since
            (["-z", "-dec 12 11:00:00 1999 GMT"], "document200"),   // not modified since, as asked
            (["-z", "-dec 12 09:00:00 1999 GMT"], "304"),           // modified since: dropped
        ]
        for (condition, expected) in cases {
            let arguments = ["-s", "-w", "%{response_code}"] + condition + [url]
            let result = try courier(arguments)
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertEqual(result.stdoutText, expected, "\(condition)")
            if let curl = try RealCurl.run(arguments) { XCTAssertEqual(curl.stdoutText, expected, "curl \(condition)") }
        }
        let file = try makeFile(named: "kept", content: Data("original".utf8))
        let kept = try courier("-s", "-z", "dec 12 11:00:00 1999 GMT", "-o", file.path, url)
        XCTAssertEqual(kept.status, 0, kept.stderrText)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "original", "the file is not touched")
    }

    private func courier(_ arguments: [String]) throws -> CLIResult {
        try start(arguments).finish()
    }
}
