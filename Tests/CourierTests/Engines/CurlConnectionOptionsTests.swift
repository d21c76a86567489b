@testable import Courier
import Foundation
import XCTest

/// Whether a request is https, as the curl engine reads it for its metrics' TLS phase: from the
/// URL's text as libcurl is given it, and the same answer as from the parsed URL.
final class CurlConnectionOptionsTests: XCTestCase {
    func testHTTPSIsReadFromTheURLsTextWithoutCase() throws {
        let cases: [(String, Bool)] = [
            ("https://example.com/", true), ("HTTPS://example.com/", true), ("hTtPs://example.com:8443/a?b", true),
            ("http://example.com/", false), ("HTTP://example.com/", false), ("httpsx://example.com/", false),
            ("https", false), ("", false), ("http://https:/", false),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(CurlConnectionOptions.isHTTPS(absoluteURL: text), expected, text)
            if let url = URL(string: text), url.scheme != nil {
                XCTAssertEqual(CurlConnectionOptions.isHTTPS(url), expected, "the parsed URL agrees: \(text)")
            }
        }
    }
}
