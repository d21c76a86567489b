@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The curl engine on the libcurl it really runs on. `scripts/libcurl-matrix` runs these, with a
/// subset of the suite, against libcurl 7.68 (a shim over the system's), 7.74, 7.88 and 8.14, and
/// against a libcurl below the floor; it names the libcurl it expects in the environment
/// (`COURIER_REQUIRE_CURL`, `COURIER_EXPECT_CURL_UNAVAILABLE`), so that a libcurl that failed to
/// load fails the run instead of passing it on URLSession.
final class LibcurlVersionTests: CLITestCase {
    /// A curl-engine network whose option choices assume `features` instead of the loaded
    /// libcurl's: to send the loaded libcurl an option of another version's path.
    private func makeCurlNetwork(assuming features: CurlFeatures) throws -> Network {
        guard Network.Engine.curlFeatures != nil else {
            throw XCTSkip("libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "?")")
        }
        let core = NetworkCore(maximumConcurrentRequests: 6) { _, _ in
            CurlTransport(configuration: CurlConfiguration(.ephemeral, tls: TLSOptions(), connection: ConnectionOptions()),
                          features: features)
        }
        let network = Network(core: core, engine: .curl, callbackQueue: DispatchQueue(label: "test.callbacks"))
        network.retryPolicy = .none
        addTeardownBlock { network.cancelAll() }
        return network
    }

    private func assumed(_ versionNumber: Int) -> CurlFeatures {
        CurlFeatures(versionNumber: versionNumber, features: 0, sslLibrary: nil)
    }

    /// Before 7.85.0 the string option is unknown to libcurl: on such a libcurl (the 7.68 shim,
    /// Debian 11's 7.74) the request fails before anything is sent, as a typed error naming the
    /// option and the libcurl — what every request did before the engine read the version. On a
    /// newer libcurl the same request goes through.
    func testAnOptionNewerThanTheLibcurlIsATypedErrorNamingItAndTheVersion() throws {
        let server = try makeServer().withStandardRoutes()
        let network = try makeCurlNetwork(assuming: assumed(0x075500))   // as if it were 7.85.0
        let loaded = try XCTUnwrap(Network.Engine.curlFeatures)
        let outcome = network.scheduleSynchronously(Request<Data>.get(server.url("/hello")), timeout: 30)
        if loaded.hasProtocolStringOptions {
            XCTAssertEqual(String(decoding: try outcome.get(), as: UTF8.self), "hello")
            return
        }
        guard case let .curlOptionRefused(option, version, error)? = networkError(outcome) else {
            return XCTFail("expected curlOptionRefused, got \(outcome)")
        }
        XCTAssertEqual(option, "CURLOPT_PROTOCOLS_STR")
        XCTAssertEqual(version, loaded.version)
        XCTAssertEqual(error.curlCode, 48)   // CURLE_UNKNOWN_OPTION
        XCTAssertEqual(server.requestCount, 0, "nothing is sent")
    }

    /// The `CURLOPT_PROTOCOLS` bitmask, the path below 7.85.0, still works on every libcurl
    /// (deprecated in 7.85.0, not removed).
    func testTheOlderProtocolsBitmaskWorksOnEveryLibcurl() throws {
        let server = try makeServer().withStandardRoutes()
        let network = try makeCurlNetwork(assuming: assumed(0x075400))   // as if it were 7.84.0
        let body = try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")), timeout: 30).get()
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "hello")
    }

    /// A matrix run names the libcurl it loaded; the engine must be on exactly that one.
    func testTheMatrixRunsOnTheLibcurlItNames() throws {
        guard let required = ProcessInfo.processInfo.environment["COURIER_REQUIRE_CURL"] else {
            throw XCTSkip("not a libcurl matrix run (COURIER_REQUIRE_CURL unset)")
        }
        let features = try XCTUnwrap(Network.Engine.curlFeatures,
                                     "libcurl \(required) did not load: \(Network.Engine.curlUnavailableReason ?? "?")")
        XCTAssertEqual(features.version, required)
        XCTAssertEqual(makeCurlNetwork().engine, .curl)
        XCTAssertEqual(Network(engine: .automatic).engine, .curl)
        // The child process loads the same libcurl, and says so.
        let result = try courier("--version")
        XCTAssertEqual(result.status, 0, result.stderrText)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("engine: curl"), result.stdoutText)
        XCTAssertTrue(lines.contains { $0.hasPrefix("libcurl/\(required) ") }, result.stdoutText)
        XCTAssertTrue(lines.contains(features.description), result.stdoutText)
    }

    private func makeCurlNetwork() -> Network {
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test.callbacks"), engine: .curl)
        addTeardownBlock { network.cancelAll() }
        return network
    }

    /// Below 7.68.0 the engine refuses to load, says why, and every `Network` that wanted it
    /// uses URLSession — with one warning on stderr per process, not silently.
    func testBelowTheFloorTheEngineIsUnavailableAndTheFallbackIsVisible() throws {
        guard let version = ProcessInfo.processInfo.environment["COURIER_EXPECT_CURL_UNAVAILABLE"] else {
            throw XCTSkip("not a below-the-floor matrix run (COURIER_EXPECT_CURL_UNAVAILABLE unset)")
        }
        XCTAssertNil(Network.Engine.curlFeatures)
        let reason = try XCTUnwrap(Network.Engine.curlUnavailableReason)
        XCTAssertTrue(reason.contains("libcurl \(version) is older than 7.68.0"), reason)
        XCTAssertEqual(makeCurlNetwork().engine, .urlSession)
        XCTAssertEqual(Network.Engine.curl.resolved, .urlSession)
        // Asked for by its own configuration, the engine is refused, not swapped for URLSession.
        XCTAssertThrowsError(try Network(curl: CurlConfiguration())) { error in
            XCTAssertEqual((error as? NetworkConfigurationError)?.reason, reason)
        }

        let versionText = try courier("--version").stdoutText
        XCTAssertTrue(versionText.contains("engine: urlsession"), versionText)
        XCTAssertTrue(versionText.contains("libcurl cannot be loaded: \(reason)"), versionText)

        let server = try makeServer().withStandardRoutes()
        for arguments in [["--engine", "curl"], []] {
            // COURIER_ENGINE emptied: the default engine is the one asked for, curl on Linux.
            let result = try start(arguments + [server.url("/hello").absoluteString], environment: ["COURIER_ENGINE": ""]).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertEqual(result.stdoutText, "hello")
            let warnings = result.stderrText.components(separatedBy: "warning: Courier's curl engine is unavailable").count - 1
            XCTAssertEqual(warnings, 1, result.stderrText)
            XCTAssertTrue(result.stderrText.contains(reason), result.stderrText)
            // -s is silent, as curl's: the warning is no error (CLIEngineTests).
            let silent = try start(arguments + ["-s", server.url("/hello").absoluteString], environment: ["COURIER_ENGINE": ""]).finish()
            XCTAssertEqual(silent.status, 0, silent.stderrText)
            XCTAssertEqual(silent.stderrText, "")
        }
    }
}
