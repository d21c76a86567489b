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
