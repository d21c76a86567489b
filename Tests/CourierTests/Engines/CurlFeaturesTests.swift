@testable import Courier
@testable import CourierCLI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The curl engine's version decisions, each checked on both sides of its boundary from the
/// version number alone (no other libcurl needed; scripts/libcurl-matrix runs them for real), and
/// the error a refused option becomes.
final class CurlFeaturesTests: XCTestCase {
    private func features(_ number: Int, bits: Int32 = 0) -> CurlFeatures {
        CurlFeatures(versionNumber: number, features: bits, sslLibrary: "OpenSSL/3.0.0")
    }

    func testTheFloorIs7_68_0() {
        XCTAssertEqual(CurlFeatures.minimumVersion, "7.68.0")
        XCTAssertFalse(CurlFeatures.isSupported(versionNumber: 0x074300))   // 7.67.0: no curl_multi_wakeup
        XCTAssertFalse(CurlFeatures.isSupported(versionNumber: 0x0743FF))
        XCTAssertTrue(CurlFeatures.isSupported(versionNumber: 0x074400))    // 7.68.0, Ubuntu 20.04
        XCTAssertTrue(CurlFeatures.isSupported(versionNumber: 0x080E01))
    }

    func testTheProtocolStringOptionsAreTakenFrom7_85_0() {
        // 7.84.0: only the CURLOPT_PROTOCOLS bitmasks exist; 7.85.0 adds CURLOPT_PROTOCOLS_STR.
        XCTAssertFalse(CurlFeatures.hasProtocolStringOptions(versionNumber: 0x075400))
        XCTAssertTrue(CurlFeatures.hasProtocolStringOptions(versionNumber: 0x075500))
        XCTAssertEqual(features(0x074400).protocolsOption, "CURLOPT_PROTOCOLS")      // 7.68.0
        XCTAssertEqual(features(0x075100).protocolsOption, "CURLOPT_PROTOCOLS")      // 7.81.0, Ubuntu 22.04
        XCTAssertEqual(features(0x075400).protocolsOption, "CURLOPT_PROTOCOLS")
        XCTAssertEqual(features(0x075500).protocolsOption, "CURLOPT_PROTOCOLS_STR")
        XCTAssertEqual(features(0x075801).protocolsOption, "CURLOPT_PROTOCOLS_STR")  // 7.88.1, Debian 12
    }

    func testEasyHandlesAreReusedExceptFrom7_84_0To8_0_1() {
        // curl issue #11101: from 7.84.0 (its header store's prevhead pointer) to 8.0.1 a reused
        // handle can write into freed memory; older libcurls keep no such pointer, 8.1.0 fixed it.
        XCTAssertTrue(CurlFeatures.reusesEasyHandles(versionNumber: 0x074400))       // 7.68.0, Ubuntu 20.04
        XCTAssertTrue(CurlFeatures.reusesEasyHandles(versionNumber: 0x074A00))       // 7.74.0, Debian 11
        XCTAssertTrue(CurlFeatures.reusesEasyHandles(versionNumber: 0x075100))       // 7.81.0, Ubuntu 22.04
        XCTAssertTrue(CurlFeatures.reusesEasyHandles(versionNumber: 0x075301))       // 7.83.1
        XCTAssertFalse(CurlFeatures.reusesEasyHandles(versionNumber: 0x075400))      // 7.84.0
        XCTAssertFalse(CurlFeatures.reusesEasyHandles(versionNumber: 0x080001))      // 8.0.1
        XCTAssertTrue(CurlFeatures.reusesEasyHandles(versionNumber: 0x080100))       // 8.1.0
        XCTAssertTrue(features(0x074A00).reusesEasyHandles)
        XCTAssertFalse(features(0x075801).reusesEasyHandles)
        XCTAssertFalse(features(0x080001).reusesEasyHandles)
        XCTAssertTrue(features(0x080100).reusesEasyHandles)
        XCTAssertTrue(features(0x080E01).reusesEasyHandles)
    }

    func testTheVersionIsReadFromTheNumber() {
        XCTAssertEqual(CurlFeatures.versionString(0x074400), "7.68.0")
        XCTAssertEqual(CurlFeatures.versionString(0x075801), "7.88.1")
        XCTAssertEqual(CurlFeatures.versionString(0x080E01), "8.14.1")
        XCTAssertEqual(features(0x074A00).version, "7.74.0")
    }

    func testHTTP2AndDecodersComeFromTheFeatureBits() {
        let none = features(0x075801)
        XCTAssertFalse(none.supportsHTTP2)
        XCTAssertEqual(none.contentDecoders, [])
        let zlibOnly = features(0x075801, bits: 1 << 3)
        XCTAssertEqual(zlibOnly.contentDecoders, ["gzip", "deflate"])
        let everything = features(0x075801, bits: 1 << 3 | 1 << 16 | 1 << 23 | 1 << 26)
        XCTAssertTrue(everything.supportsHTTP2)
        XCTAssertEqual(everything.contentDecoders, ["gzip", "deflate", "br", "zstd"])
        XCTAssertEqual(everything.description,
                       "libcurl 7.88.1: TLS OpenSSL/3.0.0, HTTP/2 yes, decoders gzip deflate br zstd, "
                       + "protocols option CURLOPT_PROTOCOLS_STR, easy handles one per transfer (libcurl 7.84.0 to 8.0.1), "
                       + "Unix sockets no, connection ids no (libcurl before 8.2.0)")
    }

    // MARK: - The wire (issue 21)

    func testALibcurlWithoutHTTP2SpeaksHTTP1_1WhateverThePreference() {
        let without = features(0x075801)
        XCTAssertFalse(without.supportsHTTP2)
        XCTAssertTrue(without.description.contains("HTTP/2 no (requests use HTTP/1.1)"), without.description)
        for preference in HTTPVersionPreference.allCases {
            XCTAssertEqual(without.httpVersionOption(for: preference), 2, "\(preference)")   // CURL_HTTP_VERSION_1_1
        }
        let with = features(0x074400, bits: 1 << 16)   // 7.68.0 with nghttp2
        XCTAssertEqual(with.httpVersionOption(for: .http1_1), 2)
        XCTAssertEqual(with.httpVersionOption(for: .http2), 4)               // CURL_HTTP_VERSION_2TLS, 7.47.0
        XCTAssertEqual(with.httpVersionOption(for: .http2PriorKnowledge), 5) // CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE, 7.49.0
    }

    func testConnectionIDsAreReadFrom8_2_0() {
        // CURLINFO_CONN_ID came with 8.2.0: asked for only from there.
        XCTAssertFalse(CurlFeatures.numbersConnections(versionNumber: 0x080101))   // 8.1.1
        XCTAssertTrue(CurlFeatures.numbersConnections(versionNumber: 0x080200))    // 8.2.0
        XCTAssertFalse(features(0x075801).numbersConnections)
        XCTAssertTrue(features(0x080E01).numbersConnections)
        XCTAssertTrue(features(0x080E01).description.hasSuffix("connection ids yes"), features(0x080E01).description)
    }

    func testUnixSocketsComeFromTheFeatureBit() {
        XCTAssertFalse(features(0x075801).supportsUnixSockets)
        XCTAssertTrue(features(0x075801, bits: 1 << 19).supportsUnixSockets)   // CURL_VERSION_UNIX_SOCKETS
    }

    /// What `curl_version_info` reported agrees with libcurl's own version line.
    func testTheLoadedLibcurlsFeaturesMatchItsVersionLine() throws {
        guard let loaded = Network.Engine.curlFeatures else {
            XCTAssertNotNil(Network.Engine.curlUnavailableReason)
            throw XCTSkip("libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "?")")
        }
        let line = try XCTUnwrap(Network.Engine.curlVersion)
        XCTAssertTrue(line.hasPrefix("libcurl/\(loaded.version) "), "\(line) vs \(loaded.version)")
        XCTAssertTrue(CurlFeatures.isSupported(versionNumber: loaded.versionNumber))
        XCTAssertEqual(loaded.reusesEasyHandles, CurlLibrary.reusesEasyHandles)
        if let ssl = loaded.sslLibrary { XCTAssertTrue(line.contains(ssl), "\(line) vs \(ssl)") }
    }

    // MARK: - A refused option

    func testARefusedOptionIsATypedErrorNamingTheOptionAndTheLibcurl() {
        let url = URL(string: "http://127.0.0.1:1/x")!
        let error = CurlFailure(code: 48, detail: "An unknown option was passed in to libcurl", url: url,
                                refusedOption: (option: "CURLOPT_PROTOCOLS_STR", libcurlVersion: "7.68.0")).networkError
        guard case let .curlOptionRefused(option, version, underlying) = error else {
            return XCTFail("expected curlOptionRefused, got \(error)")
        }
        XCTAssertEqual(option, "CURLOPT_PROTOCOLS_STR")
        XCTAssertEqual(version, "7.68.0")
        XCTAssertEqual(underlying.curlCode, 48)
        XCTAssertEqual(error.localizedDescription,
                       "libcurl 7.68.0 refused CURLOPT_PROTOCOLS_STR: An unknown option was passed in to libcurl "
                       + "(CURLcode 48, nothing was sent)")
        // Not something a retry mends.
        XCTAssertNil(RetryPolicy(maxAttempts: 3).delay(afterAttempt: 1, method: .get, error: error, now: Date()))
        // courier exits with curl's CURLE_UNKNOWN_OPTION and names both.
        let failure = Failure(error, url: url, timeout: nil)
        XCTAssertEqual(failure.exitCode.rawValue, 48)
        XCTAssertTrue(failure.message.contains("libcurl 7.68.0 refused CURLOPT_PROTOCOLS_STR"), failure.message)
    }

    func testAnOptionWithoutAGivenNameIsNamedByNumber() {
        XCTAssertEqual(CurlOptionSetter.name(of: 10318), "CURLOPT_PROTOCOLS_STR")
        XCTAssertEqual(CurlOptionSetter.name(of: 181), "CURLOPT_PROTOCOLS")
        XCTAssertEqual(CurlOptionSetter.name(of: 99_999), "CURLoption 99999")
    }

    // MARK: - The fallback warning

    func testOnlyANetworkThatWantedCurlWarnsWhenItGetsURLSession() {
        let none: [String: String] = [:]
        XCTAssertNotNil(Network.Engine.fallbackWarning(requested: .curl, resolved: .urlSession, environment: none, reason: "x"))
        XCTAssertNil(Network.Engine.fallbackWarning(requested: .curl, resolved: .curl, environment: none, reason: nil))
        XCTAssertNil(Network.Engine.fallbackWarning(requested: .urlSession, resolved: .urlSession, environment: none, reason: "x"))
        XCTAssertNil(Network.Engine.fallbackWarning(requested: .automatic, resolved: .urlSession,
                                                    environment: ["COURIER_ENGINE": "urlsession"], reason: "x"))
        XCTAssertNotNil(Network.Engine.fallbackWarning(requested: .automatic, resolved: .urlSession,
                                                       environment: ["COURIER_ENGINE": "curl"], reason: "x"))
        #if os(Linux)
        let warning = Network.Engine.fallbackWarning(requested: .automatic, resolved: .urlSession, environment: none,
                                                     reason: "libcurl 7.67.0 is older than 7.68.0")
        XCTAssertEqual(warning, "warning: Courier's curl engine is unavailable (libcurl 7.67.0 is older than 7.68.0); "
                       + "requests use URLSession instead (Network.engine tells; see Sources/Courier/Courier.docc/Engines.md)")
        #endif
    }
}
