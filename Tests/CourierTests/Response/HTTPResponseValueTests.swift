import Courier
import Foundation
import XCTest

/// ``HTTPResponse`` keeps its parts behind one shared reference (copy on write): it must still
/// behave as a value — a copy changed never changes the original, from any thread.
final class HTTPResponseValueTests: XCTestCase {
    private func sample() -> HTTPResponse {
        HTTPResponse(statusCode: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]),
                     url: URL(string: "http://127.0.0.1/a"), body: Data("abc".utf8), httpVersion: .http1_1)
    }

    func testAChangedCopyLeavesTheOriginalAsItWas() {
        let original = sample()
        var copy = original
        XCTAssertEqual(copy, original)
        copy.statusCode = 404
        copy.body = Data("changed".utf8)
        copy.headers = HTTPHeaders([("X-New", "1")])
        copy.url = URL(string: "http://127.0.0.1/b")
        copy.httpVersion = .http2
        copy.cacheStatus = .cached
        XCTAssertEqual(original.statusCode, 200)
        XCTAssertEqual(original.text, "abc")
        XCTAssertEqual(original.headers["Content-Type"], "text/plain")
        XCTAssertNil(original.headers["X-New"])
        XCTAssertEqual(original.url?.path, "/a")
        XCTAssertEqual(original.httpVersion, .http1_1)
        XCTAssertEqual(original.cacheStatus, .network)
        XCTAssertNotEqual(copy, original)
        XCTAssertEqual(copy.statusCode, 404)
        XCTAssertEqual(copy.text, "changed")
        XCTAssertEqual(copy.httpVersion, .http2)
    }

    func testEqualValuesMadeApartAreEqualAndHashAlike() {
        let one = sample()
        let other = sample()
        XCTAssertEqual(one, other)
        XCTAssertEqual(Set([one, other]).count, 1)
        var changed = other
        changed.body.append(0x21)
        XCTAssertNotEqual(one, changed)
        XCTAssertEqual(one, other, "changing a copy made from `other` left `other` as it was")
    }

    func testCopiesChangedOnManyThreadsStayTheirOwn() {
        let shared = sample()
        let results = Box<[Int: HTTPResponse]>([:])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            var mine = shared
            mine.statusCode = 200 + index
            mine.body = Data("\(index)".utf8)
            results.mutate { $0?[index] = mine }
        }
        XCTAssertEqual(shared.statusCode, 200)
        XCTAssertEqual(shared.text, "abc")
        for (index, response) in results.value ?? [:] {
            XCTAssertEqual(response.statusCode, 200 + index)
            XCTAssertEqual(response.text, "\(index)")
        }
        XCTAssertEqual(results.value?.count, 64)
    }
}
