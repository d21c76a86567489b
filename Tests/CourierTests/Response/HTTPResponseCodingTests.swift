@testable import Courier
import Foundation
import XCTest

/// A response knows whether its body is content-coded from its headers as they are now: set at
/// creation, and again whenever its headers change, on the copy that changed only.
final class HTTPResponseCodingTests: XCTestCase {
    func testTheCodingFollowsTheHeaders() {
        var response = HTTPResponse(statusCode: 200, headers: HTTPHeaders([("Content-Encoding", "gzip")]))
        XCTAssertTrue(response.isContentCoded)
        let original = response
        response.headers = HTTPHeaders([("Content-Encoding", " identity ")])
        XCTAssertFalse(response.isContentCoded)
        XCTAssertTrue(original.isContentCoded, "the copy that did not change keeps its answer")
        response.headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Encoding", "br")])
        XCTAssertTrue(response.isContentCoded)
        response.headers = [:]
        XCTAssertFalse(response.isContentCoded)
        XCTAssertEqual(HTTPResponse(statusCode: 200, headers: HTTPHeaders([("content-encoding", "deflate")])).isContentCoded, true)
        XCTAssertFalse(HTTPResponse(statusCode: 200, headers: HTTPHeaders([("Content-Encoding", "")])).isContentCoded)
    }

    func testTheDecodedLengthIsUnknownOnlyWhenTheCodedBodyArrivesDecoded() {
        var response = HTTPResponse(statusCode: 200, headers: HTTPHeaders([("Content-Encoding", "gzip"), ("Content-Length", "10")]))
        XCTAssertEqual(response.expectedContentLength, -1)
        response.decodesContent = false
        XCTAssertEqual(response.expectedContentLength, 10)
        response.decodesContent = true
        response.headers = HTTPHeaders([("Content-Length", "10")])
        XCTAssertEqual(response.expectedContentLength, 10)
    }

    /// The `Content-Length` is read with the headers too (the framing check and the expected
    /// length share it): it follows every change of them, on the copy that changed only.
    func testTheContentLengthFollowsTheHeaders() {
        var response = HTTPResponse(statusCode: 200, headers: HTTPHeaders([("Content-Length", "5")]))
        XCTAssertEqual(response.expectedContentLength, 5)
        XCTAssertNil(ResponseHeadCheck.problem(in: response))
        let original = response
        response.headers = HTTPHeaders([("content-length", "7"), ("Content-Length", "9")])
        XCTAssertEqual(response.expectedContentLength, 7, "the first field, as before")
        XCTAssertEqual(ResponseHeadCheck.problem(in: response), "conflicting Content-Length headers (7, 9)")
        XCTAssertEqual(original.expectedContentLength, 5, "the copy that did not change keeps its answer")
        XCTAssertNil(ResponseHeadCheck.problem(in: original))
        response.headers = HTTPHeaders([("Content-Length", "3, 3")])
        XCTAssertEqual(response.expectedContentLength, -1, "a list is no length")
        XCTAssertNil(ResponseHeadCheck.problem(in: response), "the same value twice is allowed")
        response.headers = [:]
        XCTAssertEqual(response.expectedContentLength, -1)
        XCTAssertNil(ResponseHeadCheck.problem(in: response))
        // The curl engine's raw fields, as it reads them from the wire.
        var builder = RawHeaderBuilder(capacity: 2)
        for (name, value) in [("Content-Length", "12"), ("Content-Length", "13")] {
            Array(name.utf8).withUnsafeBytes { nameBytes in
                Array(value.utf8).withUnsafeBytes { valueBytes in
                    builder.append(name: nameBytes[...], value: valueBytes[...])
                }
            }
        }
        let raw = HTTPResponse(statusCode: 200, headers: HTTPHeaders(raw: builder.build()))
        XCTAssertEqual(raw.expectedContentLength, 12)
        XCTAssertEqual(ResponseHeadCheck.problem(in: raw), "conflicting Content-Length headers (12, 13)")
    }
}
