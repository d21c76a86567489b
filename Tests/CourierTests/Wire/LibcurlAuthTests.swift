import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// ``LibcurlOptions/authMethods`` and ``LibcurlOptions/credentials``: libcurl answers the
/// server's `401` challenge itself, within one request, and the caller sees the answer after it.
final class LibcurlAuthTests: XCTestCase {
    private func network(engine: Network.Engine, methods: LibcurlOptions.AuthMethods) -> Network {
        var connection = ConnectionOptions()
        connection.libcurl.authMethods = methods
        connection.libcurl.credentials = "robot:hunter2"
        return Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "auth.callbacks"), engine: engine,
                       connection: connection)
    }

    func testDigestAndAnyAuthAnswerTheChallengeWithinOneRequest() throws {
        let server = try makeServer()
        server.routeDigestLogin("/login")
        for methods in [LibcurlOptions.AuthMethods.digest, .any] {
            let network = network(engine: .curl, methods: methods)
            try XCTSkipUnless(network.engine == .curl, "libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "")")
            server.resetStatistics()
            let page = try network.scheduleSynchronously(Request<Data>.get(server.url("/login")).withResponse(), timeout: 10).get()
            XCTAssertEqual(page.response.statusCode, 200, "\(methods)")
            XCTAssertEqual(String(decoding: page.value, as: UTF8.self), "welcome", "the challenge's body is not the answer")
            let requests = server.receivedRequests
            XCTAssertEqual(requests.count, 2, "the challenge, then the answer to it")
            XCTAssertTrue(requests.last?.header("Authorization")?.hasPrefix("Digest username=\"robot\"") ?? false,
                          requests.last?.header("Authorization") ?? "no Authorization")
        }
    }

    func testAWrongLoginEndsWithTheServersRefusal() throws {
        let server = try makeServer()
        server.route("/never") { _, writer in
            writer.respond(status: 401, headers: ["WWW-Authenticate": "Digest realm=\"courier\", nonce=\"4711\""], text: "denied")
        }
        let network = network(engine: .curl, methods: .digest)
        try XCTSkipUnless(network.engine == .curl, "libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "")")
        let result = network.scheduleSynchronously(Request<Data>.get(server.url("/never")), timeout: 10)
        guard case let .failure(NetworkError.httpStatus(response)) = result else {
            return XCTFail("expected the 401, got \(result)")
        }
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(response.text, "denied")
    }

    func testAPostBodyReachesTheServerAfterTheRound() throws {
        let server = try makeServer()
        server.routeDigestLogin("/login")
        // A server that asks for nothing: libcurl's first, empty request (Digest) is answered
        // at once, and libcurl sends the request again with its body.
        server.route("/open") { request, writer in
            writer.respond(status: 200, text: "open:" + String(decoding: request.body, as: UTF8.self))
        }
        for methods in [LibcurlOptions.AuthMethods.digest, .any] {
            let network = network(engine: .curl, methods: methods)
            try XCTSkipUnless(network.engine == .curl, "libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "")")
            server.resetStatistics()
            let open = try network.scheduleSynchronously(Request<Data>(method: .post, url: server.url("/open"), body: .text("payload")),
                                                         timeout: 10).get()
            XCTAssertEqual(String(decoding: open, as: UTF8.self), "open:payload", "\(methods): the answer to the request with the body")
            // --anyauth sends the body, learns the method from the challenge, and sends it again
            // (libcurl rewinds it through the seek callback).
            server.resetStatistics()
            let login = network.scheduleSynchronously(Request<Data>(method: .post, url: server.url("/login"), body: .text("payload")),
                                                      timeout: 10)
            XCTAssertEqual(try login.get(), Data("welcome".utf8), "\(methods)")
            XCTAssertEqual(server.receivedRequests.last.map { String(decoding: $0.body, as: UTF8.self) }, "payload", "\(methods)")
        }
    }

    /// A PUT while libcurl negotiates goes as libcurl's own upload (`CURLOPT_UPLOAD`, its size in
    /// `CURLOPT_INFILESIZE_LARGE`), as curl's `-T` does: its body reaches the server with the
    /// request that carries the credentials.
    func testAPutBodyReachesTheServerAfterTheRound() throws {
        let server = try makeServer()
        server.routeDigestLogin("/login")
        let network = network(engine: .curl, methods: .digest)
        try XCTSkipUnless(network.engine == .curl, "libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "")")
        let put = network.scheduleSynchronously(Request<Data>(method: .put, url: server.url("/login"), body: .text("new contents")),
                                                timeout: 10)
        XCTAssertEqual(try put.get(), Data("welcome".utf8))
        let last = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(last.method, "PUT")
        XCTAssertEqual(String(decoding: last.body, as: UTF8.self), "new contents")
        XCTAssertTrue(last.header("Authorization")?.hasPrefix("Digest ") ?? false)
    }

    func testAProxysDigestChallengeIsAnsweredByLibcurl() throws {
        let proxy = try makeServer()
        proxy.route("/hello") { request, writer in
            let authorization = request.header("Proxy-Authorization") ?? ""
            if authorization.hasPrefix("Digest "), authorization.contains("username=\"agent\"") {
                writer.respond(status: 200, text: "proxied")
            } else {
                writer.respond(status: 407, headers: ["Proxy-Authenticate": "Digest realm=\"proxy\", nonce=\"42\""], text: "who are you")
            }
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = ["HTTPProxy": "http://127.0.0.1:\(proxy.port)"]
        var connection = ConnectionOptions()
        connection.libcurl.proxyAuthMethods = .digest
        connection.libcurl.proxyCredentials = "agent:secret"
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "auth.callbacks"), engine: .curl,
                              connection: connection)
        try XCTSkipUnless(network.engine == .curl, "libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "")")
        let page = try network.scheduleSynchronously(Request<Data>.get("http://\(ProxyTests.originHost)/hello"), timeout: 10).get()
        XCTAssertEqual(String(decoding: page, as: UTF8.self), "proxied")
        XCTAssertEqual(proxy.requestCount, 2, "the challenge, then the answer")
    }

    func testURLSessionRefusesThemBeforeSendingAnything() throws {
        let server = try makeServer()
        server.routeDigestLogin("/login")
        let result = network(engine: .urlSession, methods: .digest).scheduleSynchronously(Request<Data>.get(server.url("/login")), timeout: 10)
        guard case let .failure(NetworkError.invalidRequest(detail)) = result else {
            return XCTFail("expected invalidRequest, got \(result)")
        }
        XCTAssertTrue(detail.contains("curl engine"), detail)
        XCTAssertEqual(server.requestCount, 0)
    }
}
