import Courier
import Foundation
import XCTest

/// Past ``Network/maximumRedirects`` the redirect that was not followed is no answer: every body
/// kind ends with ``NetworkError/tooManyRedirects(_:)`` and none of the redirect's own body
/// reaches a consumer or a file, as `curl -L --max-redirs` writes none of it (issue 18).
final class RedirectLimitTests: XCTestCase {
    private func makeLoopServer() throws -> TestServer {
        let server = try makeServer()
        server.route("/loop") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/loop", "ETag": "\"loop\""], text: "the redirect's own body\n")
        }
        return server
    }

    private func assertTooManyRedirects<T>(_ result: Result<T, any Error>, _ what: String,
                                           file: StaticString = #filePath, line: UInt = #line) {
        guard case let .tooManyRedirects(response)? = networkError(result, file: file, line: line) else {
            return XCTFail("\(what): expected tooManyRedirects, got \(result)", file: file, line: line)
        }
        XCTAssertEqual(response.statusCode, 302, what, file: file, line: line)
        XCTAssertEqual(response.headers["Location"], "/loop", what, file: file, line: line)
    }

    func testAStreamGetsNeitherTheRedirectsHeadNorItsBody() throws {
        let server = try makeLoopServer()
        let network = makeNetwork()
        network.maximumRedirects = 2
        var heads: [Int] = []
        var received = Data()
        let result = network.streamSynchronously(Request<Data>.get(server.url("/loop")), timeout: 30, onResponse: { head in
            heads.append(head.statusCode)
        }, onData: { received.append($0) })
        assertTooManyRedirects(result, "stream")
        XCTAssertEqual(heads, [], "the consumer saw no response")
        XCTAssertEqual(received, Data(), "nor any of the redirect's body")
        XCTAssertEqual(server.requestCount, 3, "the first request and 2 redirects")
    }

    func testADownloadWritesNoFileAndKeepsNothing() throws {
        let server = try makeLoopServer()
        let network = makeNetwork()
        network.maximumRedirects = 2
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("file.txt")
        let result = network.downloadSynchronously(Request<Data>.get(server.url("/loop")), to: destination, options: .replaceExisting, timeout: 30)
        assertTooManyRedirects(result, "download")
        XCTAssertEqual(fileNames(in: folder), [], "no file, no .partial file, no sidecar")

        // A file already there stays as it was.
        try Data("kept".utf8).write(to: destination)
        assertTooManyRedirects(network.downloadSynchronously(Request<Data>.get(server.url("/loop")), to: destination,
                                                             options: .replaceExisting, timeout: 30), "download over a file")
        XCTAssertEqual(try Data(contentsOf: destination), Data("kept".utf8))
    }

    func testAnInMemoryRequestFailsTheSameWay() throws {
        let server = try makeLoopServer()
        let network = makeNetwork()
        network.maximumRedirects = 0
        assertTooManyRedirects(network.scheduleSynchronously(Request<Data>.get(server.url("/loop")), timeout: 30), "in memory")
        XCTAssertEqual(server.requestCount, 1)
    }

    /// `/chain?left=N` redirects N times (`302`, each to `left=N-1`), then answers `done`.
    private func makeChainServer() throws -> TestServer {
        let server = try makeServer()
        server.route("/chain") { request, writer in
            let left = Int(request.queryItems["left"] ?? "") ?? 0
            if left > 0 {
                writer.respond(status: 302, headers: ["Location": "/chain?left=\(left - 1)"], text: "hop \(left)\n")
            } else {
                writer.respond(status: 200, text: "done")
            }
        }
        return server
    }

    /// More than 20 redirects are followed when the limit allows them, on both engines:
    /// FoundationNetworking fails a task's 21st redirect itself (`-1007`), so the URLSession
    /// engine follows the 20th with a new task (issue 40).
    func testALimitAboveTwentyIsHonoured() throws {
        let server = try makeChainServer()
        let network = makeNetwork()
        network.maximumRedirects = 30
        let result = network.scheduleSynchronously(Request<Data>.get(server.url("/chain?left=25")).string(), timeout: 30)
        XCTAssertEqual(try result.get(), "done")
        XCTAssertEqual(server.requestCount, 26, "the first request and 25 redirects, each sent once")

        // 45 redirects: the URLSession engine's tasks follow 19 each, three tasks in all.
        network.maximumRedirects = 50
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/chain?left=45")).string(), timeout: 30).get(), "done")
    }

    /// Past a limit above 20 the transfer fails with ``NetworkError/tooManyRedirects(_:)``
    /// carrying the redirect it stopped at, never a bare transport error.
    func testALimitAboveTwentyStillStopsTheChain() throws {
        let server = try makeChainServer()
        let network = makeNetwork()
        network.maximumRedirects = 21
        for chain in [22, 25] {
            let result = network.scheduleSynchronously(Request<Data>.get(server.url("/chain?left=\(chain)")), timeout: 30)
            guard case let .tooManyRedirects(response)? = networkError(result) else {
                XCTFail("\(chain) redirects: expected tooManyRedirects, got \(result)")
                continue
            }
            XCTAssertEqual(response.statusCode, 302)
            // The 22nd redirect, the one not followed: it leads to left = chain - 22.
            XCTAssertEqual(response.headers["Location"], "/chain?left=\(chain - 22)")
        }
        XCTAssertEqual(server.requestCount, 44, "22 requests for each chain: the first and 21 redirects")
    }
}
