import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Every failure is a typed NetworkError that keeps what the server said.
final class ErrorTests: XCTestCase {
    func testMalformedURLIsInvalidURLWithoutTouchingTheNetwork() throws {
        let network = makeNetwork()
        // A relative URL is fine to build, but needs Network.defaults.baseURL to be sent.
        for string in ["http://exa mple.com/", "not a url", "ftp://example.com/", "/relative/path"] {
            guard case .invalidURL? = networkError(result(of: Request<Data>.get(string), on: network)) else {
                return XCTFail("\(string) should be invalidURL")
            }
        }
    }

    func testErrorStatusesCarryStatusHeadersAndBody() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        for code in [404, 500] {
            guard case let .httpStatus(response)? = networkError(result(of: Request<Data>.get(server.url("/status?code=\(code)")), on: network)) else {
                return XCTFail("expected httpStatus for \(code)")
            }
            XCTAssertEqual(response.statusCode, code)
            XCTAssertEqual(response.headers["x-reason"], "test")
            XCTAssertEqual(response.text, "status \(code) body")
            XCTAssertEqual(response.url?.path, "/status")
        }
    }

    func testAcceptableStatusCodesCanBeWidened() throws {
        let server = try makeServer().withStandardRoutes()
        var request = Request<Data>.get(server.url("/status?code=404")).string()
        request.acceptableStatusCodes = 200..<500
        XCTAssertEqual(try result(of: request, on: makeNetwork())?.get(), "status 404 body")
    }

    func testBadJSONIsDecodingFailedWithTheBody() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/bad-json") { _, writer in writer.respond(json: #"{"id": "not a number"}"#) }
        guard case let .decodingFailed(underlying, response)? = networkError(result(of: GetPost(url: server.url("/bad-json")), on: makeNetwork())) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertTrue(underlying is DecodingError)
        XCTAssertEqual(response.text, #"{"id": "not a number"}"#)
        XCTAssertEqual(response.statusCode, 200)
    }

    func testInvalidUTF8IsDecodingFailedNotRepaired() throws {
        let server = try makeServer()
        server.route("/latin1") { _, writer in writer.respond(status: 200, body: Data([0x63, 0x61, 0x66, 0xE9])) }
        guard case let .decodingFailed(_, response)? = networkError(result(of: Request<Data>.get(server.url("/latin1")).string(), on: makeNetwork())) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertEqual(response.body, Data([0x63, 0x61, 0x66, 0xE9]))
    }

    /// A body on a GET is sent by the curl engine, as curl sends it; URLSession fails such a task
    /// with "resource exceeds maximum size" (-1103), so on that engine it is an `invalidRequest`
    /// that says what to do, before anything is sent. A body on a HEAD is refused on both (libcurl
    /// would drop it without a word). Never a silently changed request.
    func testAGETWithABodyIsSentOrRefusedUpFrontAndAHEADWithABodyIsRefused() throws {
        let server = try makeServer()
        server.route("/echo") { request, writer in writer.respond(status: 200, text: "\(request.method) \(request.body.count)") }
        let network = makeNetwork()
        let bodies = [(RequestBody.text("a body"), 6), (.data(Data(repeating: 1, count: 10), contentType: "application/octet-stream"), 10)]
        for (body, size) in bodies {
            guard let get = result(of: Request<Data>(method: .get, url: server.url("/echo"), body: body), on: network),
                  let head = result(of: Request<Data>(method: .head, url: server.url("/echo"), body: body), on: network) else {
                return XCTFail("no completion")
            }
            guard case let .invalidRequest(detail)? = networkError(head) else { return XCTFail("HEAD: \(head)") }
            XCTAssertEqual(detail, "a HEAD request cannot carry a body")
            if network.engine == .curl {
                XCTAssertEqual((try? get.get()).map { String(decoding: $0, as: UTF8.self) }, "GET \(size)")
            } else {
                guard case let .invalidRequest(detail)? = networkError(get) else { return XCTFail("GET: \(get)") }
                XCTAssertTrue(detail.contains("GET with a body") && detail.contains("curl engine"), detail)
            }
        }
        XCTAssertEqual(server.receivedRequests.count, network.engine == .curl ? bodies.count : 0, "only what is sent as asked reaches the server")
    }

    func testConnectionRefusedIsTransport() {
        let url = URL(string: "http://127.0.0.1:\(TestServer.unusedPort())/")!
        guard case let .transport(error)? = networkError(result(of: Request<Data>.get(url), on: makeNetwork())) else {
            return XCTFail("expected transport")
        }
        XCTAssertEqual(error.code, .cannotConnectToHost)
    }

    func testUnknownHostIsTransport() {
        // A label longer than 63 bytes can never resolve, and glibc rejects it before sending any
        // DNS query (checked with strace): the test stays on this machine.
        let url = URL(string: "http://\(String(repeating: "a", count: 70)).invalid/")!
        guard case let .transport(error)? = networkError(result(of: Request<Data>.get(url), on: makeNetwork(), timeout: 30)) else {
            return XCTFail("expected transport")
        }
        XCTAssertEqual(error.code, .cannotFindHost)
    }

    func testServerClosingMidBodyIsIncompleteBody() throws {
        let server = try makeServer()
        server.routeCuttingBody("/cut", announcing: 100000, sending: 1000)
        let network = makeNetwork()
        switch networkError(result(of: Request<Data>.get(server.url("/cut")), on: network)) {
        case let .incompleteBody(error)?:
            // "transfer closed with N bytes remaining": code -1 from FoundationNetworking; the
            // curl engine says `networkConnectionLost` and keeps CURLE_PARTIAL_FILE.
            XCTAssertEqual(error.code.rawValue, network.engine == .curl ? URLError.networkConnectionLost.rawValue : -1)
            XCTAssertTrue(LibcurlMessages.saysTheBodyWasCutShort(error.localizedDescription), error.localizedDescription)
        case let .transport(error)?:
            XCTAssertEqual(error.code, .networkConnectionLost, "a reset is the other way a cut can arrive")
        case let other:
            XCTFail("expected incompleteBody, got \(String(describing: other))")
        }
    }

    func testDeadlineIsEnforcedByCourier() throws {
        let server = try makeServer()
        holdRequests(at: "/slow", on: server, text: "too late")
        let request = Request<Data>(url: server.url("/slow"), timeout: 0.5)
        // The server answers only when the test ends, so only the deadline can end the request.
        guard case .timedOut? = networkError(result(of: request, on: makeNetwork())) else {
            return XCTFail("expected timedOut")
        }
    }

    func testDeadlineCoversASlowDripBody() throws {
        let server = try makeServer()
        let stop = Gate()
        addTeardownBlock { stop.open() }
        server.route("/drip") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "1000")])
            // One byte now and then: never idle long enough for an idle timeout, so only an
            // overall deadline can end it.
            for _ in 0..<1000 where !writer.peerHasGone {
                writer.write(Data([0x41]))
                if stop.wait(timeout: 0.05) { break }
            }
        }
        let request = Request<Data>(url: server.url("/drip"), timeout: 1)
        guard case .timedOut? = networkError(result(of: request, on: makeNetwork(), timeout: 20)) else {
            return XCTFail("expected timedOut")
        }
    }

    func test401WithWWWAuthenticateIsReportedNotHung() throws {
        let server = try makeServer()
        server.route("/private") { _, writer in
            writer.respond(status: 401, headers: ["WWW-Authenticate": #"Basic realm="test""#], text: "who are you?")
        }
        let request = Request<Data>(url: server.url("/private"), authentication: .basic(username: "u", password: "wrong"))
        guard case let .httpStatus(response)? = networkError(result(of: request, on: makeNetwork(), timeout: 20)) else {
            return XCTFail("expected httpStatus(401)")
        }
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(response.headers["WWW-Authenticate"], #"Basic realm="test""#)
        XCTAssertEqual(response.text, "who are you?")
    }

    func testConvertErrorMapsToTheAppsOwnError() throws {
        struct APIRequest: NetworkRequest {
            typealias Output = Data
            let url: URL
            func makeURL() throws -> URL { url }
            func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
                AppError(status: response?.statusCode, message: response?.text ?? "\(error)")
            }
        }
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        guard case let .failure(error)? = result(of: APIRequest(url: server.url("/status?code=503")), on: network) else {
            return XCTFail("expected failure")
        }
        XCTAssertEqual(error as? AppError, AppError(status: 503, message: "status 503 body"))

        let refused = APIRequest(url: URL(string: "http://127.0.0.1:\(TestServer.unusedPort())/")!)
        guard case let .failure(transport)? = result(of: refused, on: network) else { return XCTFail("expected failure") }
        XCTAssertEqual((transport as? AppError)?.status, nil)
    }

    func testErrorsDescribeThemselves() {
        let response = HTTPResponse(statusCode: 418, url: URL(string: "http://x.test/tea"))
        XCTAssertEqual(NetworkError.httpStatus(response).statusCode, 418)
        XCTAssertEqual(NetworkError.httpStatus(response).errorDescription, "HTTP 418 from http://x.test/tea")
        XCTAssertNil(NetworkError.timedOut.response)
    }
}
