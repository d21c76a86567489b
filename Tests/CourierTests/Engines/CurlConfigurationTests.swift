import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// `Network(curl:)`: a curl network made from the engine's own configuration, each field
/// honoured, and what cannot work refused when the network is made, not by each request.
/// `Network(urlSession:)` beside it. (Where libcurl cannot be loaded, the refusal itself is
/// tested by LibcurlVersionTests' below-the-floor run.)
final class CurlConfigurationTests: XCTestCase {
    private func makeNetwork(_ configuration: CurlConfiguration) throws -> Network {
        guard Network.Engine.curlUnavailableReason == nil else { throw XCTSkip("libcurl cannot be loaded here") }
        let network = try Network(curl: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"))
        network.retryPolicy = .none
        addTeardownBlock { network.cancelAll() }
        return network
    }

    func testItsHeadersGoWithEveryRequestInTheirOrderAndARequestsOwnWins() throws {
        let server = try makeServer().withStandardRoutes()
        let network = try makeNetwork(CurlConfiguration(headers: ["X-Zulu": "1", "X-Alpha": "2", "X-Mid": "3"]))
        XCTAssertEqual(network.engine, .curl)
        _ = try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")), timeout: 30).get()
        var own = Request<Data>.get(server.url("/hello"))
        own.headers["X-Alpha"] = "mine"
        _ = try network.scheduleSynchronously(own, timeout: 30).get()

        let seen = server.receivedRequests
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen[0].headers.map(\.name).filter { $0.hasPrefix("X-") }, ["X-Zulu", "X-Alpha", "X-Mid"],
                       "as given, not sorted: a dictionary-shaped configuration cannot keep an order")
        XCTAssertEqual(seen[1].headerValues("X-Alpha"), ["mine"])
        XCTAssertEqual(seen[1].header("X-Zulu"), "1")
    }

    func testItsIdleAndConnectTimeoutsApplyInFractionalSeconds() throws {
        let server = try stallingServer()
        var configuration = CurlConfiguration()
        configuration.connection.idleTimeout = 0.4
        configuration.connection.connectTimeout = 5
        let network = try makeNetwork(configuration)
        let result = network.scheduleSynchronously(Request<Data>(url: server.url("/stall"), timeout: .infinity), timeout: 30)
        guard case let .failure(NetworkError.timedOut(limit)) = result else { return XCTFail("expected the idle timeout, got \(result)") }
        XCTAssertEqual(limit.kind, .idle)
        XCTAssertEqual(limit.seconds, 0.4)
    }

    /// curl's `-Y`/`-y`, through ``LibcurlOptions/lowSpeedLimit``: a body slower than the limit
    /// ends with libcurl's sentence long before the idle timeout (20 s here) would.
    func testALowSpeedLimitEndsASlowTransferWithLibcurlsSentence() throws {
        let server = try stallingServer()
        var configuration = CurlConfiguration()
        configuration.connection.idleTimeout = 20
        configuration.connection.libcurl.lowSpeedLimit = LibcurlOptions.LowSpeedLimit(bytesPerSecond: 1_000, seconds: 1)
        let network = try makeNetwork(configuration)
        let result = network.scheduleSynchronously(Request<Data>(url: server.url("/stall"), timeout: .infinity), timeout: 30)
        guard case let .failure(NetworkError.transport(error)) = result else { return XCTFail("expected libcurl's low-speed limit, got \(result)") }
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertTrue(error.localizedDescription.contains("Operation too slow. Less than 1000 bytes/sec transferred the last 1 seconds"),
                      error.localizedDescription)
    }

    func testTheProxiesItNamesAreUsedWhateverTheEnvironmentSays() throws {
        let proxy = try makeProxy()
        let network = try makeNetwork(CurlConfiguration(
            proxies: .servers(http: CurlConfiguration.ProxyServer(host: "127.0.0.1", port: proxy.port), https: nil)))
        let origin = URL(string: "http://\(String(repeating: "a", count: 70)).invalid/hello")!
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(origin).string(), timeout: 30).get(),
                       "proxied for \(origin.host!)")
        XCTAssertEqual(proxy.requestCount, 1)
    }

    func testCookiesAreKeptInItsStorageOrNotAtAll() throws {
        let server = try makeServer()
        server.route("/set") { _, writer in writer.respond(status: 200, headers: ["Set-Cookie": "session=abc; Path=/"], text: "set") }
        server.route("/show") { request, writer in writer.respond(status: 200, text: request.header("Cookie") ?? "none") }

        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "CurlConfigurationTests.\(UUID())")
        let keeping = try makeNetwork(CurlConfiguration(cookies: storage))
        _ = try keeping.scheduleSynchronously(Request<Data>.get(server.url("/set")), timeout: 30).get()
        XCTAssertEqual(try keeping.scheduleSynchronously(Request<Data>.get(server.url("/show")).string(), timeout: 30).get(), "session=abc")
        XCTAssertEqual(storage.cookies?.map(\.name), ["session"])

        let forgetting = try makeNetwork(CurlConfiguration(cookies: nil))
        _ = try forgetting.scheduleSynchronously(Request<Data>.get(server.url("/set")), timeout: 30).get()
        XCTAssertEqual(try forgetting.scheduleSynchronously(Request<Data>.get(server.url("/show")).string(), timeout: 30).get(), "none")
    }

    func testSettingsThatCannotWorkAreRefusedWhenTheNetworkIsMade() throws {
        guard Network.Engine.curlUnavailableReason == nil else { throw XCTSkip("libcurl cannot be loaded here") }
        var emptySocket = CurlConfiguration()
        emptySocket.connection.unixSocketPath = ""
        var noConnections = CurlConfiguration()
        noConnections.maximumConnectionsPerHost = -1
        let noHost = CurlConfiguration(proxies: .servers(http: CurlConfiguration.ProxyServer(host: "", port: 8080), https: nil))
        var zeroIdle = CurlConfiguration()
        zeroIdle.connection.idleTimeout = 0
        for (configuration, words) in [(emptySocket, "Unix socket path is empty"), (noConnections, "maximumConnectionsPerHost is -1"),
                                       (noHost, "proxy has an empty host"), (zeroIdle, "idleTimeout")] {
            do {
                _ = try Network(curl: configuration)
                XCTFail("made a network that cannot work (\(words))")
            } catch {
                XCTAssertEqual(error.engine, .curl)
                XCTAssertTrue(error.reason.contains(words), error.reason)
                XCTAssertTrue(error.description.hasPrefix("a curl network cannot be made: "), error.description)
            }
        }
    }

    /// A configuration's interval that means no limit (0) is no limit on curl too, not a refusal.
    func testAURLSessionConfigurationWithoutATimeoutMapsToNoIdleLimit() throws {
        let server = try makeServer().withStandardRoutes()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0
        let network = try makeCurlNetwork(configuration: configuration)
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 30).get(), "hello")
    }

    func testAURLSessionNetworkIsOneWhateverTheEnvironmentSays() throws {
        let server = try makeServer().withStandardRoutes()
        let network = Network(urlSession: .ephemeral, callbackQueue: DispatchQueue(label: "test.callbacks"))
        XCTAssertEqual(network.engine, .urlSession)
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 30).get(), "hello")
    }
}
