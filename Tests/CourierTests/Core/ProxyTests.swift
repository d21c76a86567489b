import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The curl engine sends requests through the proxies a configuration's
/// `connectionProxyDictionary` names. The loopback server plays the proxy: a plain-http request
/// through a proxy is an ordinary request whose target is the absolute URL, so the server sees
/// the origin's name in `Host`, a name that could never have been reached directly. An https
/// request goes through a `CONNECT` tunnel: ``ConnectProxy`` opens it to the loopback TLS server,
/// or refuses it.
final class ProxyTests: XCTestCase {
    /// Resolves nowhere, without even a DNS query (a 70-character label is no valid host name;
    /// `.invalid` is reserved): a request for it succeeds only through a proxy.
    static let originHost = String(repeating: "a", count: 70) + ".invalid"
    /// A proxy host that resolves nowhere, for the same reasons.
    static let unresolvableProxyHost = String(repeating: "p", count: 70) + ".invalid"

    override class func tearDown() {
        TLSFixture.tearDownShared()
        super.tearDown()
    }
    private let origin = URL(string: "http://\(ProxyTests.originHost)/hello?x=1")!

    /// A curl-engine network whose configuration names `proxies`.
    private func curlNetwork(proxies: [AnyHashable: Any]) throws -> Network {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = proxies
        return try makeCurlNetwork(configuration: configuration)
    }

    func testPlainHTTPGoesThroughTheHTTPProxy() throws {
        let proxy = try makeProxy()
        for proxies: [AnyHashable: Any] in [
            ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": proxy.port],
            // As curl's -x takes it: a URL with its port.
            ["HTTPProxy": "http://127.0.0.1:\(proxy.port)"],
        ] {
            let network = try curlNetwork(proxies: proxies)
            XCTAssertEqual(try result(of: Request<Data>.get(origin).string(), on: network)?.get(), "proxied for \(Self.originHost)")
            let seen = try XCTUnwrap(proxy.receivedRequests.last)
            XCTAssertEqual(seen.path, "/hello")
            XCTAssertEqual(seen.query, "x=1")
        }
        XCTAssertEqual(proxy.requestCount, 2)
    }

    func testADisabledProxyOrOneForTheOtherSchemeIsNotUsed() throws {
        let proxy = try makeProxy()
        for proxies: [AnyHashable: Any] in [
            ["HTTPEnable": false, "HTTPProxy": "127.0.0.1", "HTTPPort": proxy.port],
            ["HTTPSEnable": 1, "HTTPSProxy": "127.0.0.1", "HTTPSPort": proxy.port],
        ] {
            let network = try curlNetwork(proxies: proxies)
            let error = networkError(result(of: Request<Data>.get(origin), on: network))
            guard case let .transport(urlError)? = error else { return XCTFail("expected an unknown host, got \(String(describing: error))") }
            XCTAssertEqual(urlError.code, .cannotFindHost)
        }
        XCTAssertEqual(proxy.connectionCount, 0)
    }

    // MARK: - https through a CONNECT tunnel

    /// Measured on Linux (swift-corelibs-foundation over libcurl 7.88.1), with `https_proxy`
    /// pointing at a tunnelling proxy: FoundationNetworking hands the proxy's `200 Connection
    /// established` head (with the proxy's own header) to the delegate as the response, and has
    /// no way to trust the test's certificate authority, so the request then fails as untrusted.
    private static let urlSessionTunnel = "URLSession on Linux ignores connectionProxyDictionary, cannot be told to trust the "
        + "test CA; measured through https_proxy, it hands the proxy's '200 Connection established' head to the delegate "
        + "as a response, then fails on the certificate. CLIProxyTests covers its refused and unresolvable proxies"

    /// A curl-engine network whose https proxy is `host:port` and that trusts the TLS server;
    /// skipped when the suite runs on URLSession, which cannot do this (see ``urlSessionTunnel``).
    private func tunnellingNetwork(proxy host: String, port: Int) throws -> Network {
        if makeNetwork().engine == .urlSession { throw XCTSkip(Self.urlSessionTunnel) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = ["HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port]
        return try makeCurlNetwork(configuration: configuration, tls: TLSOptions(certificateAuthorities: try tlsCertificates.authority))
    }

    func testHTTPSThroughATunnelReportsTheServersResponseNotTheProxys() throws {
        let server = try tlsServer()
        let proxy = try makeConnectProxy()
        let network = try tunnellingNetwork(proxy: "127.0.0.1", port: proxy.port)
        let response = try XCTUnwrap(result(of: Request<Data>.get(server.createdURL).string().withResponse(), on: network)?.get())
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.headers["X-Origin"], "courier-tls-test-server")
        XCTAssertEqual(response.headers["Content-Type"], "text/plain")
        XCTAssertNil(response.headers[ConnectProxy.extraHeader.name], "the proxy's CONNECT reply is not the response")
        XCTAssertEqual(response.value, TLSTestServer.createdBody)
        XCTAssertEqual(proxy.connectRequests, ["CONNECT 127.0.0.1:\(server.port) HTTP/1.1"])
    }

    func testARefusedTunnelIsAProxyErrorWithItsStatusReportedOnceAndNotRetried() throws {
        let server = try tlsServer()
        let proxy = try makeConnectProxy(.refuse)
        let network = try tunnellingNetwork(proxy: "127.0.0.1", port: proxy.port)
        // Retries on: a refusal is the proxy's answer, not a fault another attempt could mend.
        network.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0)
        let completions = Locked<[Result<String, any Error>]>([])
        let done = expectation(description: "completion")
        network.schedule(Request<Data>.get(server.createdURL).string()) { result in
            completions.withLock { $0.append(result) }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        // A second request through the same callback queue: a late extra completion of the
        // first would arrive before this one's.
        _ = result(of: Request<Data>.get(server.createdURL), on: network)
        let first = try XCTUnwrap(completions.withLock { $0 }.first)
        XCTAssertEqual(completions.withLock { $0.count }, 1)
        guard case let .proxy(failure, urlError)? = networkError(first) else {
            return XCTFail("expected NetworkError.proxy, got \(first)")
        }
        XCTAssertEqual(failure, .tunnelRefused(status: 407))
        XCTAssertTrue(urlError.localizedDescription.contains("407"), urlError.localizedDescription)
        XCTAssertTrue(NetworkError.proxy(failure, urlError).localizedDescription.contains("refused to open a tunnel (HTTP 407"))
        XCTAssertEqual(proxy.connectRequests.count, 2, "one CONNECT per request, none retried")
    }

    func testAnUnresolvableProxyIsNamedInTheError() throws {
        let server = try tlsServer()
        let network = try tunnellingNetwork(proxy: Self.unresolvableProxyHost, port: 3128)
        let error = networkError(result(of: Request<Data>.get(server.createdURL), on: network))
        guard case let .proxy(failure, urlError)? = error else { return XCTFail("expected NetworkError.proxy, got \(String(describing: error))") }
        XCTAssertEqual(failure, .unresolvableHost(Self.unresolvableProxyHost))
        XCTAssertEqual(urlError.code, .cannotFindHost)
        XCTAssertTrue(error?.localizedDescription.contains("proxy \(Self.unresolvableProxyHost) could not be resolved") ?? false,
                      error?.localizedDescription ?? "")
    }

    func testAProxyThatRefusesTheConnectionIsNamedInTheError() throws {
        let server = try tlsServer()
        let port = TestServer.unusedPort()
        let network = try tunnellingNetwork(proxy: "127.0.0.1", port: port)
        let error = networkError(result(of: Request<Data>.get(server.createdURL), on: network))
        guard case let .proxy(failure, urlError)? = error else { return XCTFail("expected NetworkError.proxy, got \(String(describing: error))") }
        XCTAssertEqual(failure, .connectionRefused("127.0.0.1:\(port)"))
        XCTAssertEqual(urlError.code, .cannotConnectToHost)
    }

    func testTheServerItselfRefusingTheConnectionIsNoProxyError() throws {
        // Through no proxy, the same "Failed to connect to 127.0.0.1 port N" names the server.
        let network = try makeCurlNetwork()
        let url = try XCTUnwrap(URL(string: "https://127.0.0.1:\(TestServer.unusedPort())/"))
        let error = networkError(result(of: Request<Data>.get(url), on: network))
        guard case let .transport(urlError)? = error else { return XCTFail("expected NetworkError.transport, got \(String(describing: error))") }
        XCTAssertEqual(urlError.code, .cannotConnectToHost)
    }
}
