import Foundation
import XCTest

/// Usage errors exit 2 with a short usage line; `--help` and `--version` exit 0.
final class CLIUsageTests: CLITestCase {
    func testMissingURL() throws {
        assertUsageError(try courier(), mentions: "no URL given")
        assertUsageError(try courier("post", "--data", "x"), mentions: "no URL given")
        assertUsageError(try courier("download"), mentions: "no URL given")
    }

    func testUnknownOptionsAreNamed() throws {
        assertUsageError(try courier("--frobnicate", "http://127.0.0.1/"), mentions: "unknown option --frobnicate")
        assertUsageError(try courier("-sW", "http://127.0.0.1/"), mentions: "unknown option -W")
    }

    func testBadValues() throws {
        assertUsageError(try courier("--timeout", "soon", "http://127.0.0.1/"), mentions: "--timeout needs a positive number of seconds, not 'soon'")
        assertUsageError(try courier("--timeout=-1", "http://127.0.0.1/"), mentions: "--timeout")
        assertUsageError(try courier("--retries", "many", "http://127.0.0.1/"), mentions: "--retries")
        assertUsageError(try courier("--max-concurrent", "0", "http://127.0.0.1/"), mentions: "--max-concurrent")
        assertUsageError(try courier("http://127.0.0.1/", "-o"), mentions: "-o needs a value")
    }

    func testConflictingOptions() throws {
        assertUsageError(try courier("--data", "a", "--json", "{}", "http://127.0.0.1/"), mentions: "choose one of --data, --json")
        assertUsageError(try courier("get", "--data", "a", "http://127.0.0.1/"), mentions: "get sends no body")
        assertUsageError(try courier("--json-output", "http://127.0.0.1/a", "http://127.0.0.1/b"), mentions: "several URLs")
        assertUsageError(try courier("-I", "-d", "a=1", "http://127.0.0.1/"), mentions: "-I sends a HEAD request")
        assertUsageError(try courier("download", "--json", "{}", "http://127.0.0.1/a"), mentions: "--json cannot be used with download")
        assertUsageError(try courier("download", "-o", "x", "http://127.0.0.1/a", "http://127.0.0.1/b"), mentions: "use -d DIR")
        assertUsageError(try courier("download", "http://127.0.0.1/a/f", "http://127.0.0.1/b/f"), mentions: "would both be saved as")
        assertUsageError(try courier("-u", "a:b", "--bearer", "t", "http://127.0.0.1/"), mentions: "either -u or --bearer")
    }

    func testHelpListsCommandsOptionsAndExitCodes() throws {
        for flag in ["--help", "-h"] {
            let result = try courier(flag)
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertEqual(result.stderr, Data())
            let help = result.stdoutText
            for text in ["courier download URL...", "--max-concurrent", "--upload-file", "EXIT CODES",
                         "  6  could not resolve", "  7  could not connect", " 22  HTTP status >= 400",
                         " 28  timed out", "130  interrupted"] {
                XCTAssertTrue(help.contains(text), "help lacks \(text)")
            }
        }
    }

    func testVersion() throws {
        let result = try courier("--version")
        XCTAssertEqual(result.status, 0)
        // Then the engine and libcurl lines (CLIEngineTests).
        XCTAssertTrue(result.stdoutText.hasPrefix("courier 0.1.0\nengine: "), result.stdoutText)
    }
}
