import Foundation
import XCTest

/// The environment's proxy variables — `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy` and
/// their upper-case spellings — as the curl engine honours them (libcurl reads them when the
/// network names no proxy of its own), and what the URLSession engine on Linux does with them
/// (measured here: the same, its libcurl reads them too; see Docs/Wire.md).
///
/// Run through the `courier` tool, one process per case: the variables are read from the
/// process's environment, which a test cannot change safely while other threads run. The
/// loopback test server plays a plain proxy for an origin that resolves nowhere (so a request
/// that succeeds went through it), ``ConnectProxy`` a tunnelling one for https, nginx the origin
/// that `no_proxy` sends requests straight to.
final class CLIEnvironmentProxyTests: CLITestCase {
    override class func tearDown() {
        NginxFixture.tearDownShared()
        super.tearDown()
    }

    private let origin = "http://\(ProxyTests.originHost)/hello"
    private let engines = ["curl", "urlsession"]

    func testHTTPProxyAndAllProxyAreHonouredButUpperCaseHTTPProxyIsNot() throws {
        let proxy = try makeProxy()
        let address = "http://127.0.0.1:\(proxy.port)"
        for engine in engines {
            for variable in ["http_proxy", "all_proxy", "ALL_PROXY"] {
                let result = try courier("--engine", engine, origin, environment: [variable: address])
                XCTAssertEqual(result.status, 0, "\(engine) \(variable): \(result.stderrText)")
                XCTAssertEqual(result.stdoutText, "proxied for \(ProxyTests.originHost)", "\(engine) \(variable)")
            }
            // libcurl ignores HTTP_PROXY (a CGI server sets it from a request's `Proxy:` header:
            // "httpoxy"): the request goes straight to the origin, which does not resolve.
            let upper = try start(["--engine", engine, origin], environment: ["HTTP_PROXY": address]).finish()
            XCTAssertEqual(upper.status, 6, "\(engine) HTTP_PROXY: \(upper.stderrText)")
            // http_proxy is for http URLs only.
            let other = try start(["--engine", engine, origin], environment: ["https_proxy": address]).finish()
            XCTAssertEqual(other.status, 6, "\(engine) https_proxy for an http URL: \(other.stderrText)")
        }
        XCTAssertEqual(proxy.requestCount, 3 * engines.count)
    }

    func testHTTPSGoesThroughTheEnvironmentsProxyInACONNECTTunnel() throws {
        let server = try nginx()
        let proxy = try makeConnectProxy()
        let url = server.tlsURL(NginxServer.helloPath).absoluteString
        for variable in ["https_proxy", "HTTPS_PROXY", "all_proxy"] {
            let result = try courier("--engine", "curl", "--cacert", server.certificates.authority.path, "-w", "%{http_version}", url,
                                     environment: [variable: "http://127.0.0.1:\(proxy.port)"])
            XCTAssertEqual(result.status, 0, "\(variable): \(result.stderrText)")
            // HTTP/2 inside the tunnel: ALPN is between courier and nginx.
            XCTAssertEqual(result.stdoutText, NginxServer.helloBody + "2", variable)
        }
        XCTAssertEqual(proxy.connectRequests, Array(repeating: "CONNECT 127.0.0.1:\(server.tlsPort) HTTP/1.1", count: 3))
    }

    /// `no_proxy` (or `NO_PROXY`) names hosts reached directly: a list of names or addresses,
    /// `*` for all. Measured on both engines: a `host:port` entry matches nothing. How an address
    /// is matched depends on the libcurl: 7.74.0 compares it as text, so `.0.0.1` covers
    /// 127.0.0.1 and a range does not; 7.88.1 reads addresses (curl 7.86.0's `no_proxy` rework),
    /// so `127.0.0.0/8` covers it and `.0.0.1` does not. Either way both engines agree.
    func testNoProxyExceptionsGoStraightToTheServer() throws {
        let server = try nginx()
        let url = server.plainURL(NginxServer.helloPath + "?noproxy").absoluteString
        let deadProxy = "http://127.0.0.1:\(TestServer.unusedPort())"
        let direct = ["127.0.0.1", "localhost,127.0.0.1", " example.com , 127.0.0.1", "*"]
        let proxied = ["example.com", "127.0.0.1:\(server.plainPort)"]
        for engine in engines {
            for variable in ["no_proxy", "NO_PROXY"] {
                for value in direct {
                    let result = try courier("--engine", engine, url, environment: ["http_proxy": deadProxy, variable: value])
                    XCTAssertEqual(result.status, 0, "\(engine) \(variable)=\(value): \(result.stderrText)")
                    XCTAssertEqual(result.stdoutText, NginxServer.helloBody)
                }
                for value in proxied {
                    let result = try start(["--engine", engine, url], environment: ["http_proxy": deadProxy, variable: value]).finish()
                    // 7: the proxy refused the connection; courier names it on the curl engine.
                    XCTAssertEqual(result.status, 7, "\(engine) \(variable)=\(value): \(result.stderrText)")
                }
            }
        }
        XCTAssertEqual(logged(server, NginxServer.helloPath + "?noproxy", count: direct.count * 2 * engines.count).count,
                       direct.count * 2 * engines.count)
        // Addresses as text (before 7.86) or as addresses (from 7.86): one of the two, on both engines.
        var outcomes: Set<[Int32]> = []
        for engine in engines {
            let statuses = try [".0.0.1", "127.0.0.0/8"].map { value in
                try start(["--engine", engine, url], environment: ["http_proxy": deadProxy, "no_proxy": value]).finish().status
            }
            outcomes.insert(statuses)
        }
        XCTAssertEqual(outcomes.count, 1, "the engines disagree: \(outcomes)")
        XCTAssertTrue(outcomes.isSubset(of: [[0, 7], [7, 0]]), "\(outcomes)")
        // A domain, with or without its leading dot, covers the hosts under it: the origin is
        // then looked up directly, and resolves nowhere (6), instead of reaching the dead proxy (7).
        for engine in engines {
            for value in ["invalid", ".invalid"] {
                let result = try start(["--engine", engine, origin], environment: ["http_proxy": deadProxy, "no_proxy": value]).finish()
                XCTAssertEqual(result.status, 6, "\(engine) no_proxy=\(value): \(result.stderrText)")
            }
        }
    }

    func testTheNetworksOwnProxyWinsOverTheEnvironment() throws {
        let proxy = try makeProxy()
        let deadProxy = "http://127.0.0.1:\(TestServer.unusedPort())"
        let result = try courier("--engine", "curl", "-x", "127.0.0.1:\(proxy.port)", origin,
                                 environment: ["http_proxy": deadProxy, "all_proxy": deadProxy])
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(proxy.requestCount, 1)
    }

    func testAUnixSocketIgnoresTheEnvironmentsProxy() throws {
        let server = try nginx()
        let deadProxy = "http://127.0.0.1:\(TestServer.unusedPort())"
        let result = try courier("--engine", "curl", "--unix-socket", server.socketPath, server.socketURL(NginxServer.helloPath).absoluteString,
                                 environment: ["http_proxy": deadProxy, "all_proxy": deadProxy])
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, NginxServer.helloBody)
    }
}
