import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// `NSURLRequest.CachePolicy`, each case, set the three ways code sets it: Courier's own
/// ``TransferOptions/cachePolicy``, a `URLRequest`'s `cachePolicy`, and the configuration's
/// `requestCachePolicy`; and the configuration's `urlCache`.
final class CachePolicyTests: XCTestCase {
    /// A response that is stale at once but can be validated: what each policy does with it shows.
    private func staleRoute(on server: TestServer) -> CountingRoute {
        CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v\"")]))
    }

    func testEachPolicyAsTheRequestsOwnOption() throws {
        let server = try makeServer()
        let route = staleRoute(on: server)
        let network = makeCachingNetwork()
        let url = server.url("/r")

        // Nothing stored: "don't load" fails as URLSession fails it, and sends nothing.
        XCTAssertThrowsError(try cachedGET(url, on: network, policy: .returnCacheDataDontLoad)) { error in
            guard case NetworkError.transport(let failure) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.code, .resourceUnavailable)
        }
        XCTAssertEqual(route.count, 0)

        _ = try cachedGET(url, on: network)
        XCTAssertEqual(try cachedGET(url, on: network, policy: .returnCacheDataDontLoad).response.cacheStatus, .cached, "stale, served")
        XCTAssertEqual(try cachedGET(url, on: network, policy: .returnCacheDataElseLoad).response.cacheStatus, .cached, "stale, served")
        XCTAssertEqual(route.count, 1)
        XCTAssertEqual(try cachedGET(url, on: network, policy: .reloadIgnoringLocalCacheData).response.cacheStatus, .network)
        XCTAssertNil(route.requests.last?.header("If-None-Match"), "a reload asks for the whole response")
        XCTAssertEqual(try cachedGET(url, on: network, policy: .reloadIgnoringLocalAndRemoteCacheData).response.cacheStatus, .network)
        route.answer(304, [("ETag", "\"v\"")], body: "")
        XCTAssertEqual(try cachedGET(url, on: network, policy: .reloadRevalidatingCacheData).response.cacheStatus, .revalidated)
        XCTAssertEqual(try cachedGET(url, on: network, policy: .useProtocolCachePolicy).response.cacheStatus, .revalidated)
        XCTAssertEqual(route.count, 5)
    }

    /// A request type that builds its own `URLRequest`, as code from URLSession days does.
    private struct OwnURLRequest: NetworkRequest {
        typealias Output = Data
        let url: URL
        let policy: URLRequest.CachePolicy
        func makeURL() throws -> URL { url }
        func makeURLRequest() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.cachePolicy = policy
            return request
        }
        func output(from body: Data, response: HTTPResponse) throws -> Data { body }
    }

    func testAURLRequestsCachePolicyAndTheConfigurationsAreHonouredOnThisEngine() throws {
        let server = try makeServer()
        let route = staleRoute(on: server)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"))
        addTeardownBlock { network.cancelAll() }
        XCTAssertNotNil(network.cache, "the configuration's urlCache stands for a cache")
        XCTAssertEqual(network.cache?.memoryCapacity, 1 << 20)
        let url = server.url("/r")
        _ = try network.scheduleSynchronously(Request<Data>.get(url), timeout: 20).get()
        _ = try network.scheduleSynchronously(Request<Data>.get(url), timeout: 20).get()
        XCTAssertEqual(route.count, 1, "the configuration's returnCacheDataElseLoad serves the stale response")

        // The URLRequest's own policy wins over the configuration's.
        _ = try network.scheduleSynchronously(OwnURLRequest(url: url, policy: .reloadIgnoringLocalCacheData), timeout: 20).get()
        XCTAssertEqual(route.count, 2)
        // And Courier's own option over both.
        var own = Request<Data>.get(url)
        own.transferOptions.cachePolicy = .reloadIgnoringLocalCacheData
        _ = try network.scheduleSynchronously(own, timeout: 20).get()
        XCTAssertEqual(route.count, 3)

        // Two networks made with one URLCache share one cache.
        let sibling = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"))
        XCTAssertTrue(sibling.cache === network.cache)
        _ = try sibling.scheduleSynchronously(Request<Data>.get(url), timeout: 20).get()
        XCTAssertEqual(route.count, 3)

        // No urlCache, no cache.
        configuration.urlCache = nil
        XCTAssertNil(Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks")).cache)
    }

    /// Migrating.md's VSNL section, as its reader writes it (with this test's server for the URL).
    func testTheMigratingGuidesVSNLConfigurationCachesOnLinux() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/path/44", .init(headers: [("ETag", "\"44\""), ("Cache-Control", "max-age=300")],
                                                                       body: Data(#"{"name":"forty-four"}"#.utf8)))
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 2 << 20, diskCapacity: 8 << 20, diskPath: nil)
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let cached = Network(configuration: configuration)
        struct Thing: Decodable, Sendable { let name: String }
        let request = Request<Data>.get(server.url("/path/44")).decoding(Thing.self).withResponse()
        let first = try cached.scheduleSynchronously(request, timeout: 20).get()
        let second = try cached.scheduleSynchronously(request, timeout: 20).get()
        XCTAssertEqual(first.value.name, "forty-four")
        XCTAssertEqual(second.value.name, "forty-four")
        XCTAssertEqual(second.headers["ETag"], "\"44\"")
        XCTAssertEqual(second.response.cacheStatus, .cached)
        XCTAssertEqual(route.count, 1)
    }

    /// Migrating.md's Hyperspace section: request defaults become the configuration's.
    func testTheMigratingGuidesHyperspaceDefaultPolicyReloadsEveryTime() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/posts", .init(headers: [("Cache-Control", "max-age=300")], body: Data("[]".utf8)))
        let configuration = URLSessionConfiguration.default
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let api = Network(configuration: configuration)
        XCTAssertNotNil(api.cache, "the default configuration's shared URLCache stands for a cache")
        for _ in 0..<2 { _ = try api.scheduleSynchronously(Request<Data>.get(server.url("/posts")), timeout: 20).get() }
        XCTAssertEqual(route.count, 2, "reloadIgnoringLocalCacheData: every request reaches the server")
        // A reload still stores what it gets; a network without the policy, sharing the same
        // URLCache (`.default`'s shared one), answers from it.
        let plain = Network(configuration: .default)
        XCTAssertTrue(plain.cache === api.cache)
        for _ in 0..<2 { _ = try plain.scheduleSynchronously(Request<Data>.get(server.url("/posts")), timeout: 20).get() }
        XCTAssertEqual(route.count, 2)
    }
}
