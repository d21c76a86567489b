import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// One default `User-Agent` on both engines (``Network/userAgent``), overridable per network and
/// per request; `nil` sends none on the curl engine.
final class UserAgentTests: XCTestCase {
    private func agent(of request: Request<Data>, on network: Network, server: TestServer) throws -> String? {
        XCTAssertNoThrow(try network.scheduleSynchronously(request, timeout: 30).get())
        return try XCTUnwrap(server.receivedRequests.last).header("User-Agent")
    }

    func testEveryEngineSendsCouriersNameAndVersionByDefault() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        XCTAssertEqual(CourierVersion.userAgent, "Courier/\(CourierVersion.current)")
        XCTAssertEqual(network.userAgent, CourierVersion.userAgent)
        XCTAssertEqual(try agent(of: .get(server.url("/hello")), on: network, server: server), "Courier/\(CourierVersion.current)")
        XCTAssertNotNil(CourierVersion.current.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression))
    }

    func testANetworkAndARequestCanSendTheirOwn() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        network.userAgent = "inventory-sync/2.1"
        XCTAssertEqual(try agent(of: .get(server.url("/hello")), on: network, server: server), "inventory-sync/2.1")
        XCTAssertEqual(try agent(of: .get(server.url("/hello"), headers: ["user-agent": "one-off/1.0"]), on: network, server: server),
                       "one-off/1.0", "the request's own wins")
        network.defaults.headers["User-Agent"] = "from-defaults/3"
        XCTAssertEqual(try agent(of: .get(server.url("/hello")), on: network, server: server), "from-defaults/3",
                       "the network's default headers win over userAgent")
    }

    /// The agent goes out as it is, never through FoundationNetworking's `setValue` (a cost, not
    /// a behaviour): what goes out is what `setValue` would have made of any valid value.
    func testAnAgentOutsidePrintableASCIIIsSentAsSetValueLeavesIt() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        for value in ["plain/1.0 (printable; ASCII)", "tab\tseparated/1", "caf\u{E9}/2"] {
            network.userAgent = value
            var expected = URLRequest(url: server.url("/hello"))
            expected.setValue(value, forHTTPHeaderField: "User-Agent")
            let sent = try agent(of: .get(server.url("/hello")), on: network, server: server)
            XCTAssertEqual(sent.map(Array.init), expected.value(forHTTPHeaderField: "User-Agent").map(Array.init), value)
        }
    }

    /// An agent that could split the head is a clear error on every request, not a header
    /// dropped in silence (as FoundationNetworking's `setValue` drops it) or sent.
    func testAnAgentWithALineBreakFailsTheRequestAndNothingIsSent() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        network.userAgent = "sync/1\r\nX-Injected: yes"
        guard case let .failure(error as NetworkError) = network.scheduleSynchronously(Request<Data>.get(server.url("/hello")), timeout: 30),
              case let .invalidRequest(reason) = error else {
            return XCTFail("expected invalidRequest")
        }
        XCTAssertTrue(reason.contains("User-Agent"), reason)
        XCTAssertEqual(server.requestCount, 0, "nothing may reach the server")
    }

    func testTheConfigurationsUserAgentIsTheDefault() throws {
        let server = try makeServer().withStandardRoutes()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["User-Agent": "configured/1"]
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"))
        network.retryPolicy = .none
        XCTAssertEqual(network.userAgent, "configured/1")
        XCTAssertEqual(try agent(of: .get(server.url("/hello")), on: network, server: server), "configured/1")
    }

    func testNoneSendsNoUserAgentOnTheCurlEngine() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        network.userAgent = nil
        let sent = try agent(of: .get(server.url("/hello")), on: network, server: server)
        if network.engine == .curl {
            XCTAssertNil(sent, "as curl -A ''")
        } else {
            // FoundationNetworking adds its own whenever the request has none (measured).
            XCTAssertNotEqual(sent, CourierVersion.userAgent)
        }
    }
}
