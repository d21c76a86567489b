import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A valid, complete chunked reply with a trailer section (`0\r\nX-T: 1\r\n\r\n`, RFC 9112
/// §7.1.2) is an ordinary reply: the body is what the chunks carry, and the trailer fields are
/// neither body nor a second head.
///
/// The curl engine only. FoundationNetworking (Swift 6.3.1, libcurl 7.88.1) kills the process on
/// such a reply, delegate-based and completion-handler tasks alike, after handing over the head
/// and the body: `NativeProtocol.swift:240: Fatal error: Transfer completed, but there's no
/// response` (SIGILL), on its own thread, with no callback left that could avert it (measured in
/// a separate process; see Sources/Courier/Courier.docc/LinuxNotes.md). So these are skipped on URLSession.
final class ChunkedTrailerTests: XCTestCase {
    private static let reason = "FoundationNetworking traps (SIGILL, 'Transfer completed, but there's no response') on a chunked "
        + "reply with a trailer: the process would die (Sources/Courier/Courier.docc/LinuxNotes.md)"

    /// `path` answers `hello world` in two chunks, then a last chunk with `trailers`.
    private func routeTrailers(_ path: String, _ trailers: String, on server: TestServer) {
        server.route(path) { _, writer in
            writer.writeHead(status: 200, headers: [("Transfer-Encoding", "chunked"), ("Trailer", "X-Checksum, X-T"),
                                                    ("Content-Type", "text/plain")])
            writer.write(Data("5\r\nhello\r\n6\r\n world\r\n0\r\n\(trailers)\r\n".utf8))
        }
    }

    private func makeTrailerNetwork() throws -> Network {
        let network = makeNetwork()
        guard network.engine == .curl else { throw XCTSkip(Self.reason) }
        return network
    }

    func testABodyWithTrailersArrivesWholeInMemoryStreamedAndOnDisk() async throws {
        let network = try makeTrailerNetwork()
        let server = try makeServer()
        routeTrailers("/one", "X-T: 1\r\n", on: server)
        routeTrailers("/two", "X-Checksum: sha-256=abc\r\nX-T: 2\r\n", on: server)
        for path in ["/one", "/two"] {
            let response = try XCTUnwrap(result(of: Request<Data>.get(server.url(path)).string().withResponse(), on: network)).get()
            XCTAssertEqual(response.value, "hello world", path)
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertNil(response.headers["X-T"], "a trailer is not a header of the response")
            XCTAssertEqual(response.headers["Trailer"], "X-Checksum, X-T")

            let (head, body) = try await network.bytes(for: Request<Data>.get(server.url(path)))
            var streamed = Data()
            for try await chunk in body { streamed.append(chunk) }
            XCTAssertEqual(head.statusCode, 200)
            XCTAssertEqual(String(decoding: streamed, as: UTF8.self), "hello world")

            let folder = try makeTemporaryDirectory()
            let destination = folder.appendingPathComponent("file.txt")
            XCTAssertEqual(try network.downloadSynchronously(Request<Data>.get(server.url(path)), to: destination, timeout: 10).get(),
                           destination.standardizedFileURL)
            XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "hello world")
            XCTAssertEqual(fileNames(in: folder), ["file.txt"])
        }
        XCTAssertEqual(server.requestCount, 6)
    }

    func testATrailerLineWithoutAColonDoesNotBecomeAHeadOrBody() throws {
        let network = try makeTrailerNetwork()
        let server = try makeServer()
        routeTrailers("/odd", "HTTP/1.1 500 Not a head\r\n", on: server)
        let outcome = result(of: Request<Data>.get(server.url("/odd")).string().withResponse(), on: network)
        switch outcome {
        case let .success(response)?:
            // libcurl 7.74 skips trailer lines it cannot read: the body stands as sent, and the
            // line is neither a head (the status stays 200) nor part of the body.
            XCTAssertEqual(response.value, "hello world")
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertNil(response.headers["X-T"])
        default:
            // libcurl 7.88 refuses the line ("Failed reading the chunked-encoded stream", curl
            // exits 43), 8.14 too ("Invalid response header"): a broken reply, never a second head.
            guard case let .invalidResponse(message)? = networkError(outcome) else {
                return XCTFail("expected the body or invalidResponse, got \(String(describing: outcome))")
            }
            XCTAssertTrue(message.contains("chunked") || message.contains("Invalid response header"), message)
        }
    }
}
