import Courier
import Foundation
import XCTest

/// curl's URL globbing (`{a,b}`, `[1-9]`, `[01-10]`, `[a-z:2]`, `#N` in `-o`) and `-g`, which
/// turns it off. Where the `curl` command is installed, it must ask for the same paths and
/// leave the same files.
final class CLIGlobTests: CLITestCase {
    /// A server that answers each of `paths` with its own path.
    private func server(answering paths: [String]) throws -> TestServer {
        let server = try makeServer()
        for path in paths {
            server.route(path) { request, writer in writer.respond(status: 200, text: request.path) }
        }
        return server
    }

    func testSetsAndRangesExpandInCurlsOrderIntoNumberedOutputs() throws {
        let paths = ["/g/a1", "/g/a2", "/g/b1", "/g/b2"]
        let server = try server(answering: paths)
        let arguments = ["-s", "http://127.0.0.1:\(server.port)/g/{a,b}[1-2]", "-o", "out_#1_#2.txt"]
        let folder = try makeTemporaryDirectory()
        let result = try start(arguments, in: folder).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(server.receivedRequests.map(\.path), paths, "the last pattern varies fastest")
        XCTAssertEqual(fileNames(in: folder), ["out_a_1.txt", "out_a_2.txt", "out_b_1.txt", "out_b_2.txt"])
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("out_b_1.txt"), encoding: .utf8), "/g/b1")

        let curlFolder = try makeTemporaryDirectory()
        if let curl = try RealCurl.run(arguments, in: curlFolder) {
            XCTAssertEqual(curl.status, 0, curl.stderrText)
            XCTAssertEqual(fileNames(in: curlFolder), fileNames(in: folder))
            XCTAssertEqual(Array(server.receivedRequests.map(\.path).suffix(4)), paths)
        }
    }

    func testPaddedSteppedAndLetterRangesToStdout() throws {
        let paths = ["/n/01x", "/n/01z", "/n/03x", "/n/03z"]
        let server = try server(answering: paths)
        let result = try courier("-s", "http://127.0.0.1:\(server.port)/n/[01-04:2][x-z:2]")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, paths.joined(), "every body in turn on stdout")
    }

    func testGloboffAndBadGlobs() throws {
        let server = try server(answering: ["/g/a1"])
        // -g: one request, the braces sent (percent-encoded or not) rather than expanded.
        _ = try courier("-s", "-g", "http://127.0.0.1:\(server.port)/g/{a,b}")
        XCTAssertEqual(server.receivedRequests.count, 1)
        XCTAssertTrue(server.receivedRequests.first?.path.contains("a,b") == true, "\(server.receivedRequests.map(\.path))")
        // Brackets around an IPv6 address are the address's, not a range: nobody listens (7), no bad glob (3).
        let ipv6 = "http://[::1]:\(TestServer.unusedPort())/x"
        let address = try courier("-sS", ipv6)
        XCTAssertFalse(address.stderrText.contains("glob"), address.stderrText)
        if Network.Engine.automatic.resolved == .curl { XCTAssertEqual(address.status, 7, address.stderrText) }
        if let curl = try RealCurl.run(["-s", ipv6]) { XCTAssertEqual(curl.status, 7) }
        for bad in ["http://127.0.0.1:\(server.port)/{a,b", "http://127.0.0.1:\(server.port)/[3-1]", "http://127.0.0.1:\(server.port)/x]"] {
            let result = try courier("-s", bad)
            XCTAssertEqual(result.status, 3, "\(bad): \(result.stderrText)")
            if let curl = try RealCurl.run(["-s", bad]) { XCTAssertEqual(curl.status, 3, "curl \(bad)") }
        }
        XCTAssertEqual(server.receivedRequests.count, 1, "nothing sent for a bad glob")
    }
}
