import Foundation
import XCTest

/// `--next` (`-:`): one line, several command lines run in turn, each with its own URLs and
/// per-transfer options, the global ones (`-s`, `-v`, …) for all; the last part's status is the
/// command's, and a mistake in any part stops the line before anything is sent, as in curl.
final class CLINextTests: CLITestCase {
    func testEachPartRunsWithItsOwnOptions() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo").absoluteString
        let arguments = [url, "--next", "-d", "x=1", url, "-:", "-A", "part-three", url, "-s"]
        let result = try start(arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stderr, Data(), "-s in the last part silences the first ones too")
        var requests = server.receivedRequests
        XCTAssertEqual(requests.map(\.method), ["GET", "POST", "GET"])
        guard requests.count == 3 else { return }
        XCTAssertEqual(requests[1].body, Data("x=1".utf8))
        XCTAssertEqual(requests[2].header("User-Agent"), "part-three")
        XCTAssertNotEqual(requests[0].header("User-Agent"), "part-three", "-A belongs to its part")
        if let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.status, 0)
            requests = Array(server.receivedRequests.suffix(3))
            XCTAssertEqual(requests.map(\.method), ["GET", "POST", "GET"])
            guard requests.count == 3 else { return }
            XCTAssertEqual(requests[2].header("User-Agent"), "part-three")
        }
    }

    func testTheLastPartsStatusAndAMistakeAnywhereStopsTheLine() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo").absoluteString
        let refused = "http://127.0.0.1:\(TestServer.unusedPort())/"
        XCTAssertEqual(try courier("-s", refused, "--next", url).status, 0, "the last part succeeded")
        XCTAssertEqual(try courier("-s", url, "--next", refused).status, 7)
        XCTAssertEqual(server.receivedRequests.count, 2)
        assertUsageError(try courier(url, "--next", "--no-such-option", url), mentions: "--no-such-option")
        XCTAssertEqual(server.receivedRequests.count, 2, "nothing sent")
    }
}
