import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The curl engine sends requests through the proxies a configuration's
/// `connectionProxyDictionary` names. The loopback server plays the proxy: a plain-http request
/// through a proxy is an ordinary request whose target is the absolute URL, so the server sees
/// the origin's name in `Host`, a name that could never have been reached directly.
final class ProxyTests: XCTestCase {
    /// Resolves nowhere, without even a DNS query (a 70-character label is no valid host name;
    /// `.invalid` is reserved): a request for it succeeds only through a proxy.
    static let originHost = String(repeating: "a", count: 70) + ".invalid"
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
}
