import Courier
@testable import CourierCLI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Accepted statuses as any set, accepted media types, and what a decoding failure says.
final class ValidationTests: XCTestCase {
    private static let htmlPage = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1> (from the proxy)</body></html>"

    /// `/typed?type=…&code=…` answers with that Content-Type (none when `type` is absent) and an HTML page.
    private func makeServerWithTypes() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/typed") { request, writer in
            var headers: [String: String] = [:]
            if let type = request.queryItems["type"] { headers["Content-Type"] = type }
            writer.respond(status: Int(request.queryItems["code"] ?? "") ?? 200, headers: headers, body: Data(Self.htmlPage.utf8))
        }
        // A 304 may name the type of the representation it stands for; it still has no content.
        server.route("/not-modified") { _, writer in writer.respond(status: 304, headers: ["ETag": #""v1""#, "Content-Type": "text/html"]) }
        return server
    }

    private func typedURL(_ server: TestServer, type: String?, code: Int = 200) -> URL {
        var components = URLComponents(url: server.url("/typed"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "code", value: String(code))] + (type.map { [URLQueryItem(name: "type", value: $0)] } ?? [])
        return components.url!
    }

    // MARK: Statuses

    func testAcceptedStatusesAreAnySet() throws {
        let server = try makeServerWithTypes()
        let network = makeNetwork()
        let request = Request<Data>.get(server.url("/not-modified")).accepting(statusCodes: Set(200..<300).union([304]))
        let response = try XCTUnwrap(result(of: request.withResponse(), on: network)).get()
        XCTAssertEqual(response.statusCode, 304)
        XCTAssertEqual(response.headers["ETag"], #""v1""#)

        // Only what is in the set: 2xx plus 304 does not take 301..303 or 404.
        guard case let .httpStatus(refused)? = networkError(result(of: Request<Data>.get(server.url("/status?code=404"))
            .accepting(statusCodes: Set(200..<300).union([304])), on: network)) else { return XCTFail("expected httpStatus") }
        XCTAssertEqual(refused.statusCode, 404)
        // And by default a 304 is not a success.
        guard case .httpStatus? = networkError(result(of: Request<Data>.get(server.url("/not-modified")), on: network)) else {
            return XCTFail("expected httpStatus")
        }
    }

    func testARequestTypeDeclaresItsStatuses() throws {
        struct Conditional: NetworkRequest {
            typealias Output = EmptyResponse
            let url: URL
            func makeURL() throws -> URL { url }
            var acceptedStatusCodes: Set<Int> { [200, 304] }
        }
        let server = try makeServerWithTypes()
        let network = makeNetwork()
        XCTAssertNoThrow(try XCTUnwrap(result(of: Conditional(url: server.url("/not-modified")), on: network)).get())
        guard case .httpStatus? = networkError(result(of: Conditional(url: server.url("/empty")), on: network)) else {
            return XCTFail("204 is not in [200, 304]")
        }
    }

    func testTheRangeAPIStillWorks() throws {
        let server = try makeServerWithTypes()
        var request = Request<Data>.get(server.url("/status?code=404")).string()
        XCTAssertEqual(request.acceptableStatusCodes, 200..<300)
        request.acceptableStatusCodes = 200..<500
        XCTAssertEqual(request.acceptableStatusCodes, 200..<500)
        XCTAssertTrue(request.acceptedStatusCodes.contains(404))
        XCTAssertEqual(try XCTUnwrap(result(of: request, on: makeNetwork())).get(), "status 404 body")
        request.acceptedStatusCodes = [200, 304]
        XCTAssertEqual(request.acceptableStatusCodes, 200..<305, "the smallest range holding the set")
    }

    // MARK: Media types

    func testAnHTMLPageWhereJSONWasExpectedIsUnexpectedContentType() throws {
        let server = try makeServerWithTypes()
        struct GetJSONPost: DecodableRequest {
            typealias Output = Post
            let url: URL
            func makeURL() throws -> URL { url }
            var acceptedContentTypes: [String]? { ["application/json"] }
        }
        guard case let .unexpectedContentType(expected, response)? = networkError(
            result(of: GetJSONPost(url: typedURL(server, type: "text/html; charset=utf-8")), on: makeNetwork())) else {
            return XCTFail("expected unexpectedContentType")
        }
        XCTAssertEqual(expected, ["application/json"])
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.text, Self.htmlPage, "the whole page is kept")
        let error = NetworkError.unexpectedContentType(expected: expected, response: response)
        XCTAssertEqual(error.response, response)
        XCTAssertEqual(error.statusCode, 200)
        let description = try XCTUnwrap(error.errorDescription)
        XCTAssertTrue(description.contains("text/html"), description)
        XCTAssertTrue(description.contains("application/json"), description)
        XCTAssertTrue(description.contains("<!DOCTYPE html>"), description)
    }

    func testADownloadKeepsTheErrorItsValidationThrew() throws {
        let server = try makeServerWithTypes()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("post.json")
        let network = makeNetwork()
        let request = Request<Data>.get(typedURL(server, type: "text/html")).accepting(contentTypes: ["application/json"])
        guard case let .unexpectedContentType(expected, response)? = networkError(
            network.downloadSynchronously(request, to: destination, timeout: 30)) else {
            return XCTFail("expected unexpectedContentType")
        }
        XCTAssertEqual(expected, ["application/json"])
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.text, Self.htmlPage, "the page the validation refused, body and all")
        XCTAssertEqual(fileNames(in: folder), [], "nothing written")

        // A status refusal is still httpStatus, with the page.
        guard case let .httpStatus(refused)? = networkError(network.downloadSynchronously(
            Request<Data>.get(typedURL(server, type: "text/html", code: 503)), to: destination, timeout: 30)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(refused.statusCode, 503)
        XCTAssertEqual(refused.text, Self.htmlPage)

        // An error of the request's own making is delivered as it is, as for an in-memory body.
        struct Refusal: Error, Equatable { let status: Int }
        struct OwnRules: NetworkRequest {
            typealias Output = Data
            let url: URL
            func makeURL() throws -> URL { url }
            func validate(_ response: HTTPResponse) throws { throw Refusal(status: response.statusCode) }
        }
        let own = network.downloadSynchronously(OwnRules(url: typedURL(server, type: "text/html")), to: destination, timeout: 30)
        guard case let .failure(error) = own else { return XCTFail("expected a failure") }
        XCTAssertEqual(error as? Refusal, Refusal(status: 200))
        XCTAssertEqual(fileNames(in: folder), [])
    }

    func testMediaTypeMatching() throws {
        let server = try makeServerWithTypes()
        let network = makeNetwork()
        let cases: [(type: String?, accepted: [String], passes: Bool)] = [
            ("application/json", ["application/json"], true),
            ("Application/JSON; charset=UTF-8", ["application/json"], true),
            ("application/problem+json", ["application/json"], false),
            ("application/problem+json", ["application/json", "application/problem+json"], true),
            ("text/csv", ["text/*"], true),
            ("textual/csv", ["text/*"], false),
            ("image/png", ["*/*"], true),
            ("text/html", ["application/json"], false),
            (nil, ["application/json"], false),   // a body without a type is refused
        ]
        for (type, accepted, passes) in cases {
            let request = Request<Data>.get(typedURL(server, type: type)).accepting(contentTypes: accepted)
            let outcome = result(of: request, on: network)
            if passes {
                XCTAssertNoThrow(try XCTUnwrap(outcome).get(), "\(type ?? "none") against \(accepted)")
            } else {
                guard case .unexpectedContentType? = networkError(outcome) else {
                    return XCTFail("\(type ?? "none") against \(accepted): \(String(describing: outcome))")
                }
            }
        }
    }

    func testResponsesWithoutContentAreNotTypeChecked() throws {
        let server = try makeServerWithTypes()
        let network = makeNetwork()
        let noContent = Request<Data>.get(server.url("/empty")).accepting(contentTypes: ["application/json"])
        XCTAssertEqual(try XCTUnwrap(result(of: noContent, on: network)).get(), Data())
        let notModified = Request<Data>.get(server.url("/not-modified"))
            .accepting(statusCodes: [304]).accepting(contentTypes: ["application/json"])
        XCTAssertEqual(try XCTUnwrap(result(of: notModified, on: network)).get(), Data())
    }

    func testTheStatusIsCheckedFirst() throws {
        let server = try makeServerWithTypes()
        let request = Request<Data>.get(typedURL(server, type: "text/html", code: 502)).accepting(contentTypes: ["application/json"])
        guard case let .httpStatus(response)? = networkError(result(of: request, on: makeNetwork())) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.statusCode, 502)
    }

    func testTheCLIMapsUnexpectedContentTypeToBadResponse() {
        let url = URL(string: "http://example.com/api")!
        let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "text/html"], url: url, body: Data("<html>".utf8))
        let failure = Failure(NetworkError.unexpectedContentType(expected: ["application/json"], response: response), url: url, timeout: nil)
        XCTAssertEqual(failure.exitCode, .badResponse)
        XCTAssertEqual(failure.message, "unexpected Content-Type text/html (expected application/json) (http://example.com/api)")
    }

    // MARK: What a decoding failure says

    func testADecodingFailureNamesTheTypeAndShowsTheBody() throws {
        let server = try makeServerWithTypes()
        guard case let .decodingFailed(_, response)? = networkError(
            result(of: GetPost(url: typedURL(server, type: "text/html")), on: makeNetwork())) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertEqual(response.text, Self.htmlPage)
        let description = try XCTUnwrap(NetworkError.decodingFailed(DecodingError.dataCorrupted(
            .init(codingPath: [], debugDescription: "The given data was not valid JSON.")), response).errorDescription)
        XCTAssertTrue(description.contains("text/html"), description)
        XCTAssertTrue(description.contains(": The given data was not valid JSON. The body starts"), description)
        XCTAssertTrue(description.contains(#"The body starts: "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1> (from the pr"…"#), description)

        // A real failure from the server's body says the same.
        let realDescription = try XCTUnwrap(networkError(result(of: GetPost(url: typedURL(server, type: "text/html")), on: makeNetwork()))?.errorDescription)
        XCTAssertTrue(realDescription.contains("text/html") && realDescription.contains("<!DOCTYPE html>"), realDescription)
    }

    func testADecodingFailureSaysWhereInTheJSON() throws {
        let url = URL(string: "http://example.com/post")!
        let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], url: url,
                                    body: Data(#"{"id":"seven","title":"x"}"#.utf8))
        let error: any Error
        do {
            _ = try JSONDecoder().decode(Post.self, from: response.body)
            return XCTFail("expected a decoding error")
        } catch let decodingError {
            error = decodingError
        }
        let description = try XCTUnwrap(NetworkError.decodingFailed(error, response).errorDescription)
        XCTAssertTrue(description.contains("application/json"), description)
        XCTAssertTrue(description.contains("expected Int at id"), description)
        XCTAssertTrue(description.contains(#"{\"id\":\"seven\""#), description)
    }
}
