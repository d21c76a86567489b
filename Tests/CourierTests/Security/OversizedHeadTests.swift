import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A response head larger than libcurl reads — a 200 kB reason phrase, a 1 MB header, 100,000
/// headers — is an invalid response, said plainly, on both engines (it used to be a transport
/// "Out of memory", or a receive error); `courier` exits as curl does for each
/// (`CLIHostileInputTests`).
final class OversizedHeadTests: CLITestCase {
    /// The heads, each followed by a 2-byte body. `manyFields` is 100,000 short headers; `longFields`
    /// passes the same limit with 1,000 headers of 400 bytes. (FoundationNetworking parses a
    /// head in time quadratic in its number of lines: the 100,000 short headers cost the
    /// URLSession engine about 8 s before libcurl refuses them, see LinuxNotes.md.)
    private static let heads: [(path: String, head: String, limit: OversizedHead)] = [
        ("/reason", "HTTP/1.1 200 " + String(repeating: "R", count: 200_000), .line),
        ("/big-header", "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 1_000_000), .line),
        ("/many-fields", "HTTP/1.1 200 OK\r\n" + (0..<100_000).map { "X-H\($0): v" }.joined(separator: "\r\n"), .fields),
        ("/long-fields", "HTTP/1.1 200 OK\r\n" + (0..<1_000).map { "X-H\($0): " + String(repeating: "v", count: 400) }.joined(separator: "\r\n"), .fields),
    ]

    private func makeHeadServer() throws -> TestServer {
        let server = try makeServer()
        for (path, head, _) in Self.heads {
            let reply = Data((head + "\r\nContent-Length: 2\r\n\r\nok").utf8)
            server.route(path) { _, writer in
                writer.write(reply)
                writer.closeConnection()
            }
        }
        return server
    }

    /// The paths to try: every head on both engines; 100,000 header lines too, slow as they are
    /// on the URLSession engine, whose outcome must still be the typed error (issue 40).
    private func paths(for engine: Network.Engine) -> [(path: String, limit: OversizedHead)] {
        Self.heads.map { ($0.path, $0.limit) }
    }

    func testAnOversizedHeadIsAnInvalidResponseThatSaysSo() throws {
        let server = try makeHeadServer()
        let network = makeNetwork()
        for (path, listed) in paths(for: network.engine) {
            // libcurl 8.14 and later refuse more than 5,000 header lines before 300 KiB of them.
            let countsLines = (Network.Engine.curlFeatures?.versionNumber ?? 0) >= 0x080E00
            let limit = path == "/many-fields" && countsLines ? .fieldCount : listed
            let outcome = result(of: Request<Data>.get(server.url(path)), on: network, timeout: 30)
            guard case let .invalidResponse(message)? = networkError(outcome) else {
                XCTFail("\(path): expected invalidResponse, got \(String(describing: outcome))")
                continue
            }
            XCTAssertTrue(message.hasPrefix("the response head"), "\(path): \(message)")
            XCTAssertEqual(NetworkError.invalidResponse(message).oversizedHead, limit, "\(path): \(message)")
            switch limit {
            case .line: XCTAssertTrue(message.contains("a line longer than 102,400 bytes"), message)
            case .fields: XCTAssertTrue(message.contains("Too large response headers"), message)
            case .fieldCount: XCTAssertTrue(message.contains("Too many response headers"), message)
            }
            XCTAssertTrue(NetworkError.invalidResponse(message).description.hasPrefix("The server's reply is not valid HTTP: the response head"))
        }
        XCTAssertEqual(server.requestCount, paths(for: network.engine).count, "none is retried")
    }

    /// An out-of-memory after the head is not taken for an oversized head: only a reply that is
    /// still inside its head is.
    func testAnOrdinaryReplyIsNotMistakenForAnOversizedHead() throws {
        let server = try makeServer()
        server.route("/fine") { _, writer in
            writer.respond(status: 200, headers: ["X-Long": String(repeating: "a", count: 90_000)], text: "ok")
        }
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/fine")).string(), on: makeNetwork())?.get(), "ok")
        XCTAssertNil(NetworkError.invalidResponse("Header without colon").oversizedHead)
        XCTAssertNil(NetworkError.transport(URLError(.unknown)).oversizedHead)
    }

    // courier's exit status for each head, next to real curl's on every libcurl of the matrix:
    // CLIHostileInputTests.testOversizedHeadsExitAsCurlExits (run on both engines by CI).
}
