import Foundation
import XCTest

/// `-x/--proxy`, and the environment's `http_proxy` and `no_proxy`. The loopback server plays the
/// proxy for an origin that resolves nowhere, so a request that succeeds went through it. For
/// https, ``ConnectProxy`` tunnels to the loopback TLS server, or refuses; where the `curl`
/// command is installed, it must exit as courier does.
final class CLIProxyTests: CLITestCase {
    private let origin = "http://\(ProxyTests.originHost)/hello"

    override class func tearDown() {
        TLSFixture.tearDownShared()
        super.tearDown()
    }

    func testProxyOption() throws {
        let proxy = try makeProxy()
        for address in ["http://127.0.0.1:\(proxy.port)", "127.0.0.1:\(proxy.port)"] {
            for option in ["-x", "--proxy"] {
                let result = try courier("--engine", "curl", option, address, origin)
                XCTAssertEqual(result.status, 0, "\(option) \(address): \(result.stderrText)")
                XCTAssertEqual(result.stdoutText, "proxied for \(ProxyTests.originHost)")
            }
        }
        XCTAssertEqual(proxy.requestCount, 4)
    }

    func testTheEnvironmentsProxyOnEitherEngine() throws {
        let proxy = try makeProxy()
        // Both engines run libcurl on Linux, which reads http_proxy itself.
        for engine in ["curl", "urlsession"] {
            let result = try courier("--engine", engine, origin, environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
            XCTAssertEqual(result.status, 0, "\(engine): \(result.stderrText)")
            XCTAssertEqual(result.stdoutText, "proxied for \(ProxyTests.originHost)", engine)
        }
        XCTAssertEqual(proxy.requestCount, 2)
    }

    func testProxyOptionWinsOverTheEnvironmentAndNoProxyOverBoth() throws {
        let proxy = try makeProxy()
        let nowhere = "http://127.0.0.1:\(TestServer.unusedPort())"
        let through = try courier("--engine", "curl", "-x", "127.0.0.1:\(proxy.port)", origin,
                                  environment: ["http_proxy": nowhere])
        XCTAssertEqual(through.status, 0, through.stderrText)
        XCTAssertEqual(proxy.requestCount, 1)

        // no_proxy names the origin: courier goes straight to it, and cannot resolve it.
        for arguments in [["-x", "127.0.0.1:\(proxy.port)"], []] {
            let direct = try start(["--engine", "curl"] + arguments + [origin],
                                   environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": ".invalid"]).finish()
            XCTAssertEqual(direct.status, 6, "\(arguments): \(direct.stderrText)")
        }
        XCTAssertEqual(proxy.requestCount, 1)
    }

    // MARK: - https through a CONNECT tunnel

    /// Asserts that `curl -s -o /dev/null arguments…`, if installed, exits with `expected` too.
    private func assertCurlExits(_ expected: Int32, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        guard let curl = ExternalTool.path(of: "curl") else { return }
        let reference = try ExternalTool.run(curl, ["-s", "-o", "/dev/null"] + arguments)
        XCTAssertEqual(reference.status, expected, "curl \(arguments): \(reference.stderrText)", file: file, line: line)
    }

    func testHTTPSThroughTheProxyOptionShowsTheServersResponse() throws {
        let server = try tlsServer()
        let proxy = try makeConnectProxy()
        let result = try courier("--engine", "curl", "-i", "--cacert", try tlsCertificates.authority.path,
                                 "-x", "127.0.0.1:\(proxy.port)", server.createdURL.absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        // The proxy's reply to CONNECT first, as curl writes it for -i, then the server's.
        XCTAssertTrue(result.stdoutText.hasPrefix("HTTP/1.1 200 "), result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains(ConnectProxy.extraHeader.name), result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains("\r\n\r\nHTTP/1.1 201 "), result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains("X-Origin: courier-tls-test-server"), result.stdoutText)
        XCTAssertTrue(result.stdoutText.hasSuffix(TLSTestServer.createdBody), result.stdoutText)
        XCTAssertEqual(proxy.connectRequests, ["CONNECT 127.0.0.1:\(server.port) HTTP/1.1"])
        // The CONNECT carries the User-Agent line, as curl's does.
        XCTAssertTrue(proxy.connectHeads.first?.contains("\r\nUser-Agent: ") ?? false, proxy.connectHeads.first ?? "no CONNECT")
        if let curl = try RealCurl.run(["-s", "-i", "--cacert", try tlsCertificates.authority.path, "-x", "127.0.0.1:\(proxy.port)",
                                        server.createdURL.absoluteString]) {
            let undated = { (text: String) in text.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression) }
            XCTAssertEqual(undated(curl.stdoutText), undated(result.stdoutText), "as curl writes them")
        }
    }

    func testARefusedTunnelExits56AsCurlDoesOnEitherEngine() throws {
        let server = try tlsServer()
        let proxy = try makeConnectProxy(.refuse)
        let url = server.createdURL.absoluteString
        // URLSession ignores -x on Linux but its libcurl reads https_proxy.
        for (engine, arguments, environment) in [
            ("curl", ["-x", "127.0.0.1:\(proxy.port)"], [:]),
            ("urlsession", [], ["https_proxy": "http://127.0.0.1:\(proxy.port)"]),
        ] {
            let result = try start(["--engine", engine] + arguments + [url], environment: environment).finish()
            XCTAssertEqual(result.status, 56, "\(engine): \(result.stderrText)")
            XCTAssertTrue(result.stderrText.contains("the proxy refused the tunnel to 127.0.0.1: HTTP 407 Proxy Authentication Required"),
                          "\(engine): \(result.stderrText)")
            XCTAssertFalse(result.stdoutText.contains(ConnectProxy.refusalBody), "\(engine): the proxy's page is no response")
        }
        XCTAssertEqual(proxy.connectRequests.count, 2)
        try assertCurlExits(56, ["-x", "127.0.0.1:\(proxy.port)", url])
    }

    func testAnUnresolvableProxyExits5AndIsNamedOnEitherEngine() throws {
        let url = try tlsServer().createdURL.absoluteString
        let proxy = ProxyTests.unresolvableProxyHost
        for (engine, arguments, environment) in [
            ("curl", ["-x", "\(proxy):3128"], [:]),
            ("urlsession", [], ["https_proxy": "http://\(proxy):3128"]),
        ] {
            let result = try start(["--engine", engine] + arguments + [url], environment: environment).finish()
            XCTAssertEqual(result.status, 5, "\(engine): \(result.stderrText)")
            XCTAssertTrue(result.stderrText.contains("could not resolve proxy \(proxy)"), "\(engine): \(result.stderrText)")
        }
        try assertCurlExits(5, ["-x", "\(proxy):3128", url])
    }

    func testAProxyThatRefusesTheConnectionIsNamed() throws {
        let url = try tlsServer().createdURL.absoluteString
        let port = TestServer.unusedPort()
        let result = try courier("--engine", "curl", "-x", "127.0.0.1:\(port)", url)
        XCTAssertEqual(result.status, 7, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("could not connect to proxy 127.0.0.1:\(port)"), result.stderrText)
        try assertCurlExits(7, ["-x", "127.0.0.1:\(port)", url])
    }
}
