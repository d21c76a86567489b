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
}
