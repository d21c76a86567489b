import Foundation
import XCTest

/// `courier demo` (issue 24): a newcomer's first command, which must work on any machine,
/// online or not, and leave nothing behind.
final class CLIDemoTests: CLITestCase {
    /// The demo's lines that say each step happened as it should.
    private let stepLines = [
        "[1/5] One GET", "HTTP/1.1 200 OK", "Hello from courier demo",
        "[2/5] Download 100.0 MB to a temporary file",
        "[3/5] Cancel it half-way", "NetworkError.cancelled came", "kept: demo.bin.partial",
        "[4/5] Resume", "Range: bytes=", "If-Range: \"courier-demo-1\"", "206 Partial Content",
        "Content-Range: bytes ", "/100000000", "demo.bin:  100,000,000 bytes", ": identical, byte for byte",
        "[5/5] One request, three calling conventions", "blocking  network.scheduleSynchronously(request)",
        "callback  network.schedule(request)", "async     try await network.response(for: request)",
        // Each run says when its first byte came (both engines measure it; the protocol and the
        // connection where the engine reports them).
        " bytes, first byte ",
        "Demo complete in ", "Server stopped, temporary folder removed.",
    ]

    /// The folder the demo worked in, as its download step names it.
    private func workFolder(in output: String) -> String? {
        guard let range = output.range(of: #"to: (\S+)/demo\.bin"#, options: .regularExpression) else { return nil }
        return String(output[range].dropFirst("to: ".count).dropLast("/demo.bin".count))
    }

    func testTheDemoRunsEveryStepAndLeavesNothingBehind() throws {
        let temporary = try makeTemporaryDirectory()
        let result = try courier("demo", environment: ["TMPDIR": temporary.path], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderrText)
        for line in stepLines {
            XCTAssertTrue(result.stdoutText.contains(line), "the demo's output lacks \"\(line)\":\n\(result.stdoutText)")
        }
        let folder = try XCTUnwrap(workFolder(in: result.stdoutText), result.stdoutText)
        XCTAssertTrue(folder.hasPrefix(temporary.path), "the demo works in TMPDIR: \(folder)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "the demo's folder is removed")
        XCTAssertEqual(fileNames(in: temporary), [], "nothing left in TMPDIR")
        // Progress is for stderr, and the demo shows it there even when stderr is no terminal.
        XCTAssertTrue(result.stderrText.contains("demo.bin"), result.stderrText)
        XCTAssertFalse(result.stdoutText.contains("MB / 100.0 MB"), "no progress on stdout")
    }

    func testAFailingStepExitsNonZeroWithAMessageAndStillCleansUp() throws {
        let temporary = try makeTemporaryDirectory()
        // The server flips a byte of the resumed part: the checksum step must catch it.
        let result = try courier("demo", environment: ["TMPDIR": temporary.path, "COURIER_DEMO_CORRUPT": "1"], timeout: 120)
        XCTAssertEqual(result.status, 1, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("courier: demo step 4 of 5 failed: the checksum of demo.bin"), result.stderrText)
        XCTAssertTrue(result.stdoutText.contains(": different"), result.stdoutText)
        XCTAssertFalse(result.stdoutText.contains("[5/5]"), "the demo stops at the failed step")
        XCTAssertFalse(result.stdoutText.contains("Demo complete"))
        XCTAssertEqual(fileNames(in: temporary), [], "the temporary folder is removed on failure too")
    }

    /// The demo's requests go to its own server, inside the process: a proxy the environment
    /// names must not take them, on either engine, whatever `no_proxy` says. They used to fail
    /// at step 1 ("could not connect to proxy").
    func testTheDemoNeverGoesThroughTheEnvironmentsProxy() throws {
        let temporary = try makeTemporaryDirectory()
        let deadProxy = "http://127.0.0.1:\(TestServer.unusedPort())"
        let every = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        for engine in ["curl", "urlsession"] {
            for variables in [["all_proxy"], ["ALL_PROXY"], every] {
                var environment = ["TMPDIR": temporary.path, "no_proxy": "example.invalid", "NO_PROXY": ""]
                for variable in variables { environment[variable] = deadProxy }
                let result = try courier("demo", "-s", "--engine", engine, environment: environment, timeout: 120)
                XCTAssertEqual(result.status, 0, "\(engine) \(variables): \(result.stderrText)")
                XCTAssertTrue(result.stdoutText.contains("Demo complete in "), "\(engine) \(variables): \(result.stdoutText)")
            }
        }
        XCTAssertEqual(fileNames(in: temporary), [])
    }

    func testTheDemoTakesNoURLAndIsInTheHelp() throws {
        assertUsageError(try courier("demo", "http://127.0.0.1/"), mentions: "demo takes no URL")
        let help = try courier("--help")
        XCTAssertTrue(help.stdoutText.contains("courier demo "), help.stdoutText)
    }
}
