import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// ``Network/followsRedirects`` and the rewrite of a body a redirect turns into a `GET`, on the
/// engine the suite runs (`swift test`: curl; `COURIER_ENGINE=urlsession swift test`: URLSession).
final class FollowsRedirectsTests: XCTestCase {
    private func makeRedirectServer() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/moved") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/hello", "X-Hop": "1"], text: "the redirect's own body")
        }
        return server
    }

    func testNotFollowingMakesTheRedirectTheAnswer() throws {
        let server = try makeRedirectServer()
        let network = makeNetwork()
        XCTAssertTrue(network.followsRedirects, "following is the default")
        network.followsRedirects = false
        var request = Request<Data>.get(server.url("/moved"))
        request.acceptedStatusCodes = Set(200..<400)
        let response = try network.scheduleSynchronously(request.withResponse(), timeout: 30).get()
        XCTAssertEqual(response.response.statusCode, 302)
        XCTAssertEqual(response.response.headers["Location"], "/hello")
        XCTAssertEqual(response.value, Data("the redirect's own body".utf8))
        XCTAssertEqual(server.receivedRequests.map(\.path), ["/moved"], "one request, nothing followed")

        // Not accepted, the 3xx is an error status like any other.
        guard case let .httpStatus(refused)? = networkError(network.scheduleSynchronously(Request<Data>.get(server.url("/moved")), timeout: 30)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(refused.statusCode, 302)

        // And back on: followed.
        network.followsRedirects = true
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/moved")), timeout: 30).get(), Data("hello".utf8))
    }

    func testAStreamGetsTheRedirectsHeadAndBody() throws {
        let server = try makeRedirectServer()
        let network = makeNetwork()
        network.followsRedirects = false
        var request = Request<Data>.get(server.url("/moved"))
        request.acceptedStatusCodes = Set(100..<600)
        var heads: [Int] = []
        var received = Data()
        let result = network.streamSynchronously(request, timeout: 30, onResponse: { heads.append($0.statusCode) },
                                                 onData: { received.append($0) })
        XCTAssertNoThrow(try result.get())
        XCTAssertEqual(heads, [302])
        XCTAssertEqual(received, Data("the redirect's own body".utf8))
        XCTAssertEqual(server.requestCount, 1)
    }

    func testAPostTurnedIntoAGetSendsNoBodyNorItsDescription() throws {
        let server = try makeServer().withStandardRoutes()
        for status in [301, 302, 303] {
            server.route("/moved-\(status)") { _, writer in writer.respond(status: status, headers: ["Location": "/echo"]) }
        }
        let network = makeNetwork()
        for status in [301, 302, 303] {
            server.resetStatistics()
            let request = Request<Data>(method: .post, url: server.url("/moved-\(status)"), body: .data(Data("a=1".utf8), contentType: "application/x-www-form-urlencoded"))
            XCTAssertNoThrow(try network.scheduleSynchronously(request, timeout: 30).get(), "\(status)")
            let followed = try XCTUnwrap(server.receivedRequests.last, "\(status)")
            XCTAssertEqual(followed.path, "/echo", "\(status)")
            XCTAssertEqual(followed.method, "GET", "\(status)")
            XCTAssertEqual(followed.body, Data(), "\(status): the POST's body stays behind")
            XCTAssertNil(followed.header("Content-Type"), "\(status)")
            XCTAssertNil(followed.header("Content-Length").flatMap { $0 == "0" ? nil : $0 }, "\(status)")
        }
    }

    func testAStreamNeverSeesTheBodyOfA307CourierReplays() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/temporary") { _, writer in
            writer.respond(status: 307, headers: ["Location": "/echo"], text: "307's own body, for nobody")
        }
        let network = makeNetwork()
        let request = Request<Data>(method: .post, url: server.url("/temporary"), body: .data(Data("kept".utf8), contentType: "text/plain"))
        var heads: [Int] = []
        var received = Data()
        let result = network.streamSynchronously(request, timeout: 30, onResponse: { heads.append($0.statusCode) },
                                                 onData: { received.append($0) })
        XCTAssertNoThrow(try result.get())
        XCTAssertEqual(heads, [200], "the consumer sees the answer's head only")
        XCTAssertEqual(received, Data("kept".utf8), "the body replayed and echoed, nothing of the 307")
        XCTAssertEqual(server.receivedRequests.last?.method, "POST")
    }

    func testRedirectHeadsKeepTheServersFieldOrderOnTheCurlEngine() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/ordered") { _, writer in
            writer.writeHead(status: 302, headers: [("Zeta", "1"), ("Alpha", "2"), ("Location", "/hello"), ("Content-Length", "0")])
        }
        let network = makeNetwork()
        try XCTSkipUnless(network.engine == .curl, "URLSession hands a redirect's fields over as a dictionary, in no order")
        let observer = RedirectHeads()
        network.observers = [observer]
        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>.get(server.url("/ordered")), timeout: 30).get())
        XCTAssertEqual(observer.heads.first?.headers.fields.map(\.name), ["Zeta", "Alpha", "Location", "Content-Length"])
    }
}

/// The heads of the redirects a network follows.
private final class RedirectHeads: NetworkObserver, @unchecked Sendable {  // heads is under its lock.
    private let lock = NSLock()
    private var collected: [HTTPResponse] = []
    var heads: [HTTPResponse] { lock.withLock { collected } }

    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        lock.withLock { collected.append(response) }
    }
}
