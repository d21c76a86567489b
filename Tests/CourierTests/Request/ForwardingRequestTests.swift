import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `ForwardingRequest` (a wrapper states only what it changes) and `Network.send(_:)` (the async
/// verb that returns `Response<Output>`), against a loopback server.
final class ForwardingRequestTests: XCTestCase {
    /// A request of the app's own, with members of every kind set away from their defaults.
    private struct CreateNote: NetworkRequest {
        typealias Output = String
        let url: URL
        func makeURL() throws -> URL { url }
        var method: HTTPMethod { .put }
        var headers: [String: String] { ["X-App": "notes"] }
        var body: RequestBody? { .text("first note") }
        var authentication: Authentication? { .bearer("t0ken") }
        var timeout: TimeInterval { 17 }
        var acceptedStatusCodes: Set<Int> { [201] }
        func output(from body: Data, response: HTTPResponse) throws -> String { String(decoding: body, as: UTF8.self) }
        func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
            AppError(status: response?.statusCode, message: "converted")
        }
    }

    /// A wrapper that changes what goes out (a header, through the base's own `URLRequest`) and
    /// a member Courier reads itself (the deadline), and declares nothing else.
    private struct Traced<Base: NetworkRequest>: ForwardingRequest {
        typealias Output = Base.Output
        let base: Base
        var timeout: TimeInterval { 5 }
        func makeURLRequest() throws -> URLRequest {
            var request = try base.makeURLRequest()
            request.setValue("42", forHTTPHeaderField: "X-Trace")
            return request
        }
    }

    private func echoServer() throws -> TestServer {
        let server = try makeServer()
        server.route("/notes") { request, writer in
            let fields = request.headers.map { "\($0.name.lowercased())=\($0.value)" }.sorted().joined(separator: ";")
            writer.respond(status: 201, headers: ["ETag": "\"v1\""], text: "\(request.method) \(String(decoding: request.body, as: UTF8.self)) \(fields)")
        }
        server.route("/gone") { _, writer in writer.respond(status: 200, text: "not 201") }
        return server
    }

    func testAWrapperKeepsEveryMemberItDoesNotDeclare() throws {
        let server = try echoServer()
        let traced = Traced(base: CreateNote(url: server.url("/notes")))
        XCTAssertEqual(traced.method, .put)
        XCTAssertEqual(traced.timeout, 5)
        XCTAssertEqual(traced.acceptedStatusCodes, [201])
        XCTAssertEqual(traced.headers, ["X-App": "notes"])
        XCTAssertEqual(try traced.makeURL(), server.url("/notes"))

        let echoed = try XCTUnwrap(result(of: traced, on: makeNetwork())).get()
        XCTAssertTrue(echoed.hasPrefix("PUT first note "), echoed)
        XCTAssertTrue(echoed.contains("x-app=notes"), echoed)
        XCTAssertTrue(echoed.contains("x-trace=42"), "the header the wrapper adds: \(echoed)")
        XCTAssertTrue(echoed.contains("authorization=Bearer t0ken"), echoed)

        // The base's validation (201 only) and error conversion, through the wrapper.
        let refused = result(of: Traced(base: CreateNote(url: server.url("/gone"))), on: makeNetwork())
        guard case let .failure(error as AppError)? = refused else { return XCTFail("expected the converted error, got \(String(describing: refused))") }
        XCTAssertEqual(error, AppError(status: 200, message: "converted"))
    }

    func testSendReturnsTheOutputWithItsResponse() async throws {
        let server = try echoServer()
        let network = makeNetwork()
        let sent = try await network.send(CreateNote(url: server.url("/notes")))
        XCTAssertEqual(sent.statusCode, 201)
        XCTAssertEqual(sent.headers["ETag"], "\"v1\"")
        XCTAssertTrue(sent.value.hasPrefix("PUT first note"), sent.value)
        XCTAssertTrue(sent.response.body.isEmpty, "the body is the output, not kept twice")
        XCTAssertNotNil(sent.response.metrics?.firstByte, "the response's metrics come along")
        // The same as response(for:) with withResponse().
        let other = try await network.response(for: CreateNote(url: server.url("/notes")).withResponse())
        XCTAssertEqual(other.value, sent.value)
        XCTAssertEqual(other.statusCode, sent.statusCode)

        do {
            _ = try await network.send(CreateNote(url: server.url("/gone")))
            XCTFail("a 200 is not accepted by this request")
        } catch let error as AppError {
            XCTAssertEqual(error.status, 200)
        }
    }
}
