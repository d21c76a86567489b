import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The network's HTTP behaviours a request sets for itself through ``TransferOptions``:
/// following redirects, how many, and decoding, each over the network's own, on the engine the
/// suite runs.
final class PerRequestOptionsTests: XCTestCase {
    private func makeChainServer() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/one") { _, writer in writer.respond(status: 302, headers: ["Location": "/two"], text: "one") }
        server.route("/two") { _, writer in writer.respond(status: 302, headers: ["Location": "/hello"], text: "two") }
        return server
    }

    func testARequestFollowsRedirectsOrNotWhateverItsNetworkDoes() throws {
        let server = try makeChainServer()
        let network = makeNetwork()
        var own = Request<Data>.get(server.url("/one")).accepting(statusCodes: Set(200..<400))
        own.transferOptions.followsRedirects = false
        let answer = try network.scheduleSynchronously(own.withResponse(), timeout: 30).get()
        XCTAssertEqual(answer.statusCode, 302, "this request alone does not follow")
        XCTAssertEqual(answer.value, Data("one".utf8))
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/one")), timeout: 30).get(), Data("hello".utf8),
                       "the network still follows")

        network.followsRedirects = false
        own.transferOptions.followsRedirects = true
        XCTAssertEqual(try network.scheduleSynchronously(own, timeout: 30).get(), Data("hello".utf8), "this request alone follows")
    }

    func testARequestsOwnRedirectLimit() throws {
        let server = try makeChainServer()
        let network = makeNetwork()
        var short = Request<Data>.get(server.url("/one"))
        short.transferOptions.maximumRedirects = 1
        guard case let .tooManyRedirects(response)? = networkError(network.scheduleSynchronously(short, timeout: 30)) else {
            return XCTFail("expected tooManyRedirects")
        }
        XCTAssertEqual(response.statusCode, 302)
        short.transferOptions.maximumRedirects = -3
        XCTAssertNotNil(networkError(network.scheduleSynchronously(short, timeout: 30)), "negative: none followed")

        network.maximumRedirects = 0
        var long = Request<Data>.get(server.url("/one"))
        long.transferOptions.maximumRedirects = 2
        XCTAssertEqual(try network.scheduleSynchronously(long, timeout: 30).get(), Data("hello".utf8), "over the network's 0")
    }

    /// Decoding per request, and the cache: a body kept decoded never answers a request that is to
    /// get it as sent.
    func testARequestsOwnDecodingAndTheCacheKeepsTheFormsApart() throws {
        let server = try makeServer()
        let count = Box<Int>(0)
        server.route("/gz") { _, writer in
            count.mutate { $0! += 1 }
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Cache-Control": "max-age=600"], body: Gzip.fixture)
        }
        let network = makeNetwork()
        network.cache = HTTPCache(memoryCapacity: 1 << 20)
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/gz")).string(), timeout: 30).get(), Gzip.fixtureText)
        var raw = Request<Data>.get(server.url("/gz"))
        raw.transferOptions.decompressesResponses = false
        let sent = try network.scheduleSynchronously(raw, timeout: 30).get()
        // URLSession cannot help decoding; the curl engine hands the bytes on as sent.
        XCTAssertEqual(sent, network.engine == .curl ? Gzip.fixture : Data(Gzip.fixtureText.utf8))
        XCTAssertEqual(count.value, 2, "not answered from the decoded form the cache keeps")
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/gz")).string(), timeout: 30).get(), Gzip.fixtureText)
        XCTAssertEqual(count.value, 2, "the decoded form answers a request that decodes")
    }

    /// A request's own HTTP version: taken by the curl engine, refused before anything is sent
    /// where the engine cannot choose it per request (HTTP/2, the default, is accepted everywhere).
    func testARequestsOwnHTTPVersionIsTakenOrRefusedBeforeAnythingIsSent() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        var request = Request<Data>.get(server.url("/hello"))
        request.transferOptions.httpVersion = .http2
        XCTAssertEqual(try network.scheduleSynchronously(request, timeout: 30).get(), Data("hello".utf8))
        request.transferOptions.httpVersion = .http1_1
        let result = network.scheduleSynchronously(request, timeout: 30)
        if network.engine == .curl {
            XCTAssertEqual(try result.get(), Data("hello".utf8))
            XCTAssertEqual(server.requestCount, 2)
        } else {
            guard case let .invalidRequest(detail)? = networkError(result) else { return XCTFail("expected invalidRequest, got \(result)") }
            XCTAssertTrue(detail.contains("curl engine"), detail)
            XCTAssertEqual(server.requestCount, 1, "nothing sent")
        }
    }
}
