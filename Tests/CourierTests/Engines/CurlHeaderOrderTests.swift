@testable import Courier
import Foundation
import XCTest

/// curl's order of a request's header lines (``CurlHeaderOrder``): libcurl's own lines where
/// libcurl writes them, the custom ones in the order they came, the body's last.
final class CurlHeaderOrderTests: XCTestCase {
    private func arranged(_ names: [String], bodyLength: Int64? = nil) -> [String] {
        var fields = names.map { (name: $0, value: "v") }
        CurlHeaderOrder.arrange(&fields, bodyLength: bodyLength)
        return fields.map(\.name)
    }

    func testLibcurlsLinesGoWhereCurlWritesThemAndTheRestKeepTheirOrder() {
        XCTAssertEqual(arranged(["Accept-Encoding", "User-Agent"]), ["User-Agent", "Accept", "Accept-Encoding"])
        XCTAssertEqual(arranged(["X-B", "Cookie", "X-A", "Authorization", "X-C"]),
                       ["Authorization", "Accept", "Cookie", "X-B", "X-A", "X-C"],
                       "custom lines after libcurl's, in the order they came")
        XCTAssertEqual(arranged(["Expect", "X-A", "Range"], bodyLength: 5),
                       ["Range", "Accept", "X-A", "Content-Length", "Expect"])
        XCTAssertEqual(arranged(["User-Agent", "Accept"]), ["User-Agent", "Accept"], "a list in order is left as it is")
    }
}
