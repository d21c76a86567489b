import Courier
import Foundation
import XCTest

/// `--engine curl|urlsession` and what `--version` says about the engines.
final class CLIEngineTests: CLITestCase {
    func testVersionNamesTheEngineInUseAndLibcurl() throws {
        let result = try courier("--version")
        XCTAssertEqual(result.status, 0, result.stderrText)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "courier 0.1.0")
        // The child inherits COURIER_ENGINE, so it resolves `.automatic` as this process does.
        let expected = Network.Engine.automatic.resolved == .curl ? "curl" : "urlsession"
        XCTAssertTrue(lines.contains("engine: \(expected)"), result.stdoutText)
        if let version = Network.Engine.curlVersion {
            XCTAssertTrue(version.hasPrefix("libcurl/"))
            XCTAssertTrue(lines.contains(version), result.stdoutText)
        } else {
            XCTAssertTrue(result.stdoutText.contains("libcurl cannot be loaded"), result.stdoutText)
        }
    }

    func testEitherEngineCarriesARequest() throws {
        let server = try makeServer().withStandardRoutes()
        for engine in ["urlsession", "curl", "CURL"] {
            let result = try courier("--engine", engine, server.url("/hello").absoluteString)
            XCTAssertEqual(result.status, 0, "\(engine): \(result.stderrText)")
            XCTAssertEqual(result.stdoutText, "hello", engine)
        }
        XCTAssertEqual(server.requestCount, 3)
    }

    func testAnUnknownEngineIsAUsageError() throws {
        assertUsageError(try courier("--engine", "nghttp", "http://127.0.0.1/"), mentions: "--engine takes curl or urlsession, not 'nghttp'")
        assertUsageError(try courier("download", "--engine=", "http://127.0.0.1/a"), mentions: "--engine takes curl or urlsession")
    }
}
