import Courier
import Foundation
import XCTest

/// ``Network/decompressesResponses``: on (the default), codings are offered and bodies decoded;
/// off, the curl engine offers none and hands every body on as the server sent it (as curl
/// without `--compressed`). URLSession cannot be told: it always offers and decodes.
final class DecompressesResponsesTests: XCTestCase {
    /// A server that compresses whatever was offered, and notes what was.
    private func makeGzipServer(offered: Locked<[String?]>) throws -> TestServer {
        let server = try makeServer()
        server.route("/notes.txt") { request, writer in
            offered.withLock { $0.append(request.header("Accept-Encoding")) }
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain"], body: Gzip.fixture)
        }
        return server
    }

    func testOnByDefaultTheBodyIsDecoded() throws {
        let offered = Locked<[String?]>([])
        let server = try makeGzipServer(offered: offered)
        let network = makeNetwork()
        XCTAssertTrue(network.decompressesResponses)
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/notes.txt")), timeout: 30).get(),
                       Data(Gzip.fixtureText.utf8))
        XCTAssertTrue(offered.current.first??.contains("gzip") == true, "\(offered.current)")
    }

    func testOffNothingIsOfferedAndTheBodyArrivesAsSent() throws {
        let offered = Locked<[String?]>([])
        let server = try makeGzipServer(offered: offered)
        let network = makeNetwork()
        network.decompressesResponses = false
        try XCTSkipUnless(network.engine == .curl, "URLSession always offers its codings and decodes; it cannot be told otherwise")
        let body = try network.scheduleSynchronously(Request<Data>.get(server.url("/notes.txt")), timeout: 30).get()
        XCTAssertEqual(body, Gzip.fixture, "the gzip bytes, as received")
        XCTAssertEqual(offered.current, [nil], "no Accept-Encoding")

        // A stream too; and a request's own Accept-Encoding goes as it is, its answer not decoded.
        var streamed = Data()
        XCTAssertNoThrow(try network.streamSynchronously(Request<Data>.get(server.url("/notes.txt"), headers: ["Accept-Encoding": "gzip"]),
                                                         timeout: 30, onData: { streamed.append($0) }).get())
        XCTAssertEqual(streamed, Gzip.fixture)
        XCTAssertEqual(offered.current.last, "gzip")

        // Back on for the next request.
        network.decompressesResponses = true
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/notes.txt")), timeout: 30).get(),
                       Data(Gzip.fixtureText.utf8))
    }
}
