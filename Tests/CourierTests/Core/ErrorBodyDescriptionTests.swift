import Courier
import Foundation
import TestSupport
import XCTest

/// An error status prints what the server said: the start of a text body, bounded, on one line
/// and redacted; any other body by type and size.
final class ErrorBodyDescriptionTests: XCTestCase {
    private let url = URL(string: "http://x.test/users/404")!

    private func describe(_ body: String, type: String?) -> String {
        let headers: HTTPHeaders = type.map { ["Content-Type": $0] } ?? [:]
        return "\(NetworkError.httpStatus(HTTPResponse(statusCode: 404, headers: headers, url: url, body: Data(body.utf8))))"
    }

    func testAJSONErrorPageIsShown() {
        XCTAssertEqual(describe(#"{"error": "no such user"}"#, type: "application/json; charset=utf-8"),
                       #"HTTP 404 from http://x.test/users/404. The body (25 bytes, application/json): {"error": "no such user"}"#)
    }

    func testALongTextBodyIsCutAndPutOnOneLine() {
        let page = "<html>\n<head><title>Not Found</title></head>\n<body>" + String(repeating: "x", count: 5_000) + "</body></html>"
        let text = describe(page, type: "text/html")
        XCTAssertTrue(text.hasPrefix("HTTP 404 from http://x.test/users/404. The body (\(page.utf8.count) bytes, text/html): <html> <head><title>Not Found"), text)
        XCTAssertTrue(text.hasSuffix("…"), text)
        XCTAssertFalse(text.contains("\n"))
        XCTAssertLessThan(text.count, 320)
    }

    func testABinaryBodyIsShownByTypeAndSize() {
        let response = HTTPResponse(statusCode: 500, headers: ["Content-Type": "image/png"], url: url, body: Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2]))
        XCTAssertEqual("\(NetworkError.httpStatus(response))", "HTTP 500 from http://x.test/users/404. The body: 7 bytes of image/png.")
        let untyped = HTTPResponse(statusCode: 500, url: url, body: Data([0, 1, 2, 3]))
        XCTAssertEqual("\(NetworkError.httpStatus(untyped))", "HTTP 500 from http://x.test/users/404. The body: 4 bytes.")
    }

    func testSecretsTheServerEchoedAreHidden() {
        let text = describe(#"{"error": "expired", "access_token": "s3cr3t", "see": "https://x.test/a?token=t0k"}"#, type: "application/json")
        XCTAssertFalse(text.contains("s3cr3t"), text)
        XCTAssertFalse(text.contains("t0k"), text)
        XCTAssertTrue(text.contains(#""access_token": "<redacted>""#), text)
        let form = describe("error=expired&token=abc", type: "application/x-www-form-urlencoded")
        XCTAssertTrue(form.hasSuffix("error=expired&token=<redacted>"), form)
    }

    func testAnEmptyBodyAddsNothing() {
        XCTAssertEqual(describe("", type: "application/json"), "HTTP 404 from http://x.test/users/404")
    }

    func testARealErrorPageIsPrinted() throws {
        let server = try makeServer()
        server.route("/users/404") { _, writer in
            writer.respond(json: #"{"error": "no such user"}"#, status: 404)
        }
        let result = makeNetwork().scheduleSynchronously(Request<Data>.get(server.url("/users/404")), timeout: 10)
        guard case let .failure(error) = result else { return XCTFail("expected a failure") }
        XCTAssertTrue("\(error)".hasSuffix(#"The body (25 bytes, application/json): {"error": "no such user"}"#), "\(error)")
    }
}
