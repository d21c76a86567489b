import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `withResponse()`: the output together with status, headers and URL, in every calling convention.
final class ResponseWithHeadersTests: XCTestCase {
    private static let link = #"<http://127.0.0.1/posts?page=3>; rel="next""#

    /// `/created` answers 201 with pagination, ETag and rate-limit headers and a JSON post.
    private func makeServerWithHeaders() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/created") { _, writer in
            writer.respond(status: 201, headers: [
                "Content-Type": "application/json", "Link": Self.link, "ETag": #""v7""#, "X-RateLimit-Remaining": "41",
            ], body: Data(#"{"id":7,"title":"New"}"#.utf8))
        }
        return server
    }

    private func assertHead(_ response: Response<Post>?, server: TestServer, file: StaticString = #filePath, line: UInt = #line) {
        guard let response else { return XCTFail("no response", file: file, line: line) }
        XCTAssertEqual(response.value, Post(id: 7, title: "New"), file: file, line: line)
        XCTAssertEqual(response.statusCode, 201, file: file, line: line)
        XCTAssertEqual(response.headers["link"], Self.link, file: file, line: line)
        XCTAssertEqual(response.headers["ETag"], #""v7""#, file: file, line: line)
        XCTAssertEqual(response.headers["x-ratelimit-remaining"], "41", file: file, line: line)
        XCTAssertEqual(response.response.url, server.url("/created"), file: file, line: line)
        XCTAssertEqual(response.response.body, Data(), "the body went into value; the head carries none", file: file, line: line)
    }

    func testCallbacks() throws {
        let server = try makeServerWithHeaders()
        let request = GetPost(url: server.url("/created")).withResponse()
        assertHead(try result(of: request, on: makeNetwork())?.get(), server: server)
    }

    func testBlocking() throws {
        let server = try makeServerWithHeaders()
        let network = makeNetwork()
        assertHead(try network.scheduleSynchronously(GetPost(url: server.url("/created")).withResponse(), timeout: 10).get(), server: server)
        // The convenience on the request itself.
        let viaRequest = Request<Data>.get(server.url("/created")).decoding(Post.self).withResponse()
        assertHead(try viaRequest.scheduleSynchronously(on: network, timeout: 10).get(), server: server)
    }

    func testAsync() async throws {
        let server = try makeServerWithHeaders()
        let network = makeNetwork()
        assertHead(try await network.response(for: GetPost(url: server.url("/created")).withResponse()), server: server)
        assertHead(try await GetPost(url: server.url("/created")).withResponse().response(on: network), server: server)
    }

    func testEventsWithProgress() async throws {
        let server = try makeServerWithHeaders()
        var progress: [Int64] = []
        var finished: Response<Data>?
        for try await event in makeNetwork().events(for: Request<Data>.get(server.url("/bytes?n=300000")).withResponse()) {
            switch event {
            case let .progress(value): progress.append(value.completedBytes)
            case let .finished(response): finished = response
            }
        }
        let response = try XCTUnwrap(finished)
        XCTAssertEqual(response.value.count, 300_000)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.headers["Content-Length"], "300000")
        XCTAssertEqual(response.response.body.count, 0)
        XCTAssertEqual(progress.last, 300_000)
    }

    func testCallbackProgressAndCompletionOnTheChosenQueue() throws {
        let server = try makeServerWithHeaders()
        let queue = QueueMarker(DispatchQueue(label: "test.with-response"))
        let done = expectation(description: "completion")
        let progressed = Box<Int64>(0)
        let outcome = Box<Result<Response<Data>, any Error>>()
        makeNetwork().schedule(Request<Data>.get(server.url("/bytes?n=200000")).withResponse(), callbackQueue: queue.queue) { progress in
            XCTAssertTrue(queue.isCurrent)
            progressed.value = progress.completedBytes
        } completion: { result in
            XCTAssertTrue(queue.isCurrent)
            outcome.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        let response = try XCTUnwrap(outcome.value).get()
        XCTAssertEqual(response.value.count, 200_000)
        XCTAssertEqual(response.headers["Content-Length"], "200000")
        XCTAssertEqual(progressed.value, 200_000)
    }

    func testFailuresAndErrorConversionAreTheBaseRequests() throws {
        let server = try makeServerWithHeaders()
        let network = makeNetwork()
        // A plain failure: the whole response, body included, as without withResponse().
        guard case let .httpStatus(response)? = networkError(result(of: GetPost(url: server.url("/status?code=404")).withResponse(), on: network)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.text, "status 404 body")

        // The base request's convertError and validation still apply.
        struct Problem: Decodable, Sendable { let message: String }
        server.route("/problem") { _, writer in writer.respond(json: #"{"message":"nope"}"#, status: 422) }
        let converted = result(of: Request<Data>.get(server.url("/problem")).decodingErrors(as: Problem.self).withResponse(), on: network)
        guard case let .failure(error as ServerError<Problem>)? = converted else { return XCTFail("\(String(describing: converted))") }
        XCTAssertEqual(error.model.message, "nope")

        var accepting = Request<Data>.get(server.url("/status?code=404"))
        accepting.acceptedStatusCodes = [404]
        let accepted = try XCTUnwrap(result(of: accepting.withResponse(), on: network)).get()
        XCTAssertEqual(accepted.statusCode, 404)
        XCTAssertEqual(String(decoding: accepted.value, as: UTF8.self), "status 404 body")
    }

    func testResponseIsSendableWhenItsOutputIs() {
        func requireSendable<T: Sendable>(_: T.Type) {}
        requireSendable(Response<Post>.self)
        requireSendable(RequestWithResponse<GetPost>.self)
        XCTAssertEqual(Response(value: 1, response: HTTPResponse(statusCode: 200)), Response(value: 1, response: HTTPResponse(statusCode: 200)))
    }
}
