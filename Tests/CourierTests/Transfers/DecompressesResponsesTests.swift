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

    /// The curl engine writes the `Accept-Encoding` line itself rather than leave it to libcurl
    /// (cheaper: see `CurlRequestOptions`). The wire must not tell: one line, libcurl's value
    /// (its decoders in its own order), in curl's place (after `User-Agent` and `Accept`, as
    /// `curl --compressed` sends it); and a request's own value, once.
    func testTheOfferIsOneLineInLibcurlsPlaceWithLibcurlsValue() throws {
        let server = try makeServer()
        let seen = Locked<[[(name: String, value: String)]]>([])
        server.route("/plain") { request, writer in
            seen.withLock { $0.append(request.headers) }
            writer.respond(status: 200, headers: [:], body: Data("ok".utf8))
        }
        let network = makeNetwork()
        try XCTSkipUnless(network.engine == .curl, "URLSession writes its own request head")
        let decoders = try XCTUnwrap(Network.Engine.curlFeatures).contentDecoders
        let libcurlOrder = ["deflate", "gzip", "br", "zstd"].filter(decoders.contains)
        let offer = libcurlOrder.isEmpty ? "identity" : libcurlOrder.joined(separator: ", ")

        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>.get(server.url("/plain")), timeout: 30).get())
        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>.get(server.url("/plain"), headers: ["accept-encoding": "gzip", "X-Own": "1"]),
                                                           timeout: 30).get())
        let heads = seen.current
        XCTAssertEqual(heads.count, 2)
        guard heads.count == 2 else { return }
        let offered = heads.map { head in head.filter { $0.name.lowercased() == "accept-encoding" }.map(\.value) }
        XCTAssertEqual(offered, [[offer], ["gzip"]], "one line each: libcurl's offer, then the request's own value")
        let names = heads[0].map { $0.name.lowercased() }
        // curl's order (`curl --compressed`): the offer follows Accept, after User-Agent (CurlHeaderOrder).
        XCTAssertEqual(Array(names.prefix(4)), ["host", "user-agent", "accept", "accept-encoding"], "\(heads[0])")
        XCTAssertFalse(names.contains("expect"), "a request without a body sends no Expect")
    }
}
