import Foundation
import XCTest

/// `-x/--proxy`, and the environment's `http_proxy` and `no_proxy`. The loopback server plays the
/// proxy for an origin that resolves nowhere, so a request that succeeds went through it.
final class CLIProxyTests: CLITestCase {
    private let origin = "http://\(ProxyTests.originHost)/hello"

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
}
