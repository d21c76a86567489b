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
}
