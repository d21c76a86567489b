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

    /// Where libcurl is older than 7.68.0 the library falls back to URLSession and warns on
    /// stderr. `-s` is silent, as curl's, and the warning is no error, so `-sS` hides it too;
    /// without `-s` it shows. scripts/libcurl-shim.c, built here, makes this machine's libcurl
    /// report 7.67.0 (as the libcurl-matrix's "floor" run does).
    func testSilentHidesTheEngineFallbackWarning() throws {
        let folder = try makeTemporaryDirectory()
        let shim = try Self.buildLibcurlShim(in: folder)
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/hello").absoluteString
        // COURIER_ENGINE emptied: the default engine is the one asked for, curl on Linux.
        let environment = ["LD_PRELOAD": shim.path, "COURIER_LIBCURL_SHIM_VERSION": "7.67.0", "COURIER_ENGINE": ""]
        let warning = "warning: Courier's curl engine is unavailable (libcurl 7.67.0 is older than 7.68.0"
        for arguments in [["-s"], ["-sS"], ["-s", "--engine", "curl"], ["download", "-s", "-o", "hello.txt"]] {
            let result = try start(arguments + [url], in: folder, environment: environment).finish()
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderrText)")
            XCTAssertEqual(result.stderrText, "", "\(arguments): nothing on stderr")
        }
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("hello.txt"), encoding: .utf8), "hello")
        let demo = try courier("demo", "-s", environment: environment.merging(["TMPDIR": folder.path]) { $1 }, timeout: 120)
        XCTAssertEqual(demo.status, 0, demo.stderrText)
        XCTAssertFalse(demo.stderrText.contains(warning), demo.stderrText)
        XCTAssertTrue(demo.stdoutText.contains("the URLSession engine"), demo.stdoutText)

        let loud = try start([url], environment: environment).finish()
        XCTAssertEqual(loud.status, 0, loud.stderrText)
        XCTAssertEqual(loud.stdoutText, "hello")
        XCTAssertTrue(loud.stderrText.hasPrefix(warning), loud.stderrText)
    }

    /// scripts/libcurl-shim.c compiled into `folder`; skips where the machine has no C compiler.
    private static func buildLibcurlShim(in folder: URL) throws -> URL {
        guard let compiler = ["cc", "clang", "gcc"].lazy.compactMap(ExternalTool.path(of:)).first else {
            throw XCTSkip("no C compiler to build scripts/libcurl-shim.c")
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../scripts/libcurl-shim.c")
        let shim = folder.appendingPathComponent("libcurl-shim.so")
        let built = try ExternalTool.run(compiler, ["-O2", "-shared", "-fPIC", "-o", shim.path, source.standardizedFileURL.path, "-ldl"])
        guard built.status == 0 else { throw TLSFixtureError("the shim did not build: \(built.stderrText)") }
        return shim
    }
}
