import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

final class RequestBuildingTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1:1/path")!

    func testDefaults() throws {
        let request = try Request<Data>.get(url).makeURLRequest()
        XCTAssertEqual(request.httpMethod, "GET")
        XCTAssertNil(request.httpBody)
        // Left as URLRequest makes it: the idle timeout is the request's transferOptions over the
        // network's, which Courier watches itself; a value set here would override them.
        XCTAssertEqual(request.timeoutInterval, 60)
        XCTAssertEqual(try Request<Data>(url: url, timeout: 0.3).makeURLRequest().timeoutInterval, 60)
    }

    func testEveryBodyGetsAContentType() throws {
        struct Payload: Encodable, Sendable { let a: Int }
        let cases: [(RequestBody, String, String)] = [
            (.json(Payload(a: 1)), "application/json", #"{"a":1}"#),
            (.form([("name", "Jo Doe"), ("q", "a&b=c"), ("name", "x")]), "application/x-www-form-urlencoded",
             "name=Jo+Doe&q=a%26b%3Dc&name=x"),
            (.text("héllo"), "text/plain; charset=utf-8", "héllo"),
            (.data(Data("raw".utf8), contentType: "application/octet-stream"), "application/octet-stream", "raw"),
        ]
        for (body, contentType, encoded) in cases {
            let request = try Request<Data>(method: .post, url: url, body: body).makeURLRequest()
            XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), contentType)
            XCTAssertEqual(request.httpBody.map { String(decoding: $0, as: UTF8.self) }, encoded)
        }
    }

    func testExplicitContentTypeWinsAndAuthenticationSetsAuthorization() throws {
        let request = try Request<Data>(
            method: .put, url: url, headers: ["content-type": "application/vnd.x+json", "X-Trace": "1"],
            body: .text("{}"), authentication: .basic(username: "user", password: "pa:ss")
        ).makeURLRequest()
        XCTAssertEqual(request.httpMethod, "PUT")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/vnd.x+json")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Trace"), "1")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Authorization"), "Basic dXNlcjpwYTpzcw==")
        XCTAssertEqual(Authentication.bearer("t0k").headerValue, "Bearer t0k")
        XCTAssertEqual(Authentication.raw("Token abc").headerValue, "Token abc")
    }

    func testUnencodableJSONIsEncodingFailed() {
        struct Broken: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws { throw CocoaError(.coderInvalidValue) }
        }
        XCTAssertThrowsError(try Request<Data>(method: .post, url: url, body: .json(Broken())).makeURLRequest()) { error in
            guard case NetworkError.encodingFailed = error else { return XCTFail("\(error)") }
        }
    }

    func testNonHTTPURLsAreRejectedUpFront() {
        for string in ["ftp://example.com/file", "file:///etc/passwd", "http://"] {
            XCTAssertThrowsError(try Request<Data>.get(string).makeURLRequest(), string) { error in
                guard case NetworkError.invalidURL = error else { return XCTFail("\(string): \(error)") }
            }
        }
    }

    func testHTTPMethodTokens() {
        XCTAssertEqual(HTTPMethod(rawValue: "patch"), .patch)
        XCTAssertTrue(HTTPMethod.put.isIdempotent)
        XCTAssertFalse(HTTPMethod.post.isIdempotent)
    }

    func testHeadersAreCaseInsensitive() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "Set-Cookie": "a=1", "set-cookie": "b=2"]
        XCTAssertEqual(headers["content-TYPE"], "text/plain")
        XCTAssertEqual(headers.values(for: "SET-COOKIE"), ["a=1", "b=2"])
        XCTAssertNil(headers["missing"])
    }

    func testProgressFraction() {
        XCTAssertEqual(TransferProgress(completedBytes: 50, totalBytes: 200).fractionCompleted, 0.25)
        XCTAssertNil(TransferProgress(completedBytes: 50, totalBytes: nil).fractionCompleted)
        XCTAssertEqual(TransferProgress(completedBytes: 0, totalBytes: 0).fractionCompleted, 1)
    }
}
