@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `Set-Cookie` read by Courier itself (RFC 6265 §5.2, §5.3), never by FoundationNetworking's
/// parser, whose date handling traps on bytes a server chooses.
final class SetCookieTests: XCTestCase {
    private let url = URL(string: "https://www.example.com/account/settings")!
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func stored(_ field: String, from url: URL? = nil) -> HTTPCookie? {
        SetCookie.parse(field)?.storedCookie(for: url ?? self.url, now: now)
    }

    func testNameValueAndAttributes() throws {
        let cookie = try XCTUnwrap(SetCookie.parse(" id = a3fWa ; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly; Path=/docs; Domain=.Example.COM; SameSite=Lax"))
        XCTAssertEqual(cookie.name, "id")
        XCTAssertEqual(cookie.value, "a3fWa")
        XCTAssertEqual(cookie.expires, HTTPDate.parse("Wed, 21 Oct 2015 07:28:00 GMT"))
        XCTAssertEqual(cookie.path, "/docs")
        XCTAssertEqual(cookie.domain, "example.com")
        XCTAssertTrue(cookie.isSecure)
        XCTAssertTrue(cookie.isHTTPOnly)
        XCTAssertEqual(SetCookie.parse("empty=")?.value, "")
        XCTAssertEqual(SetCookie.parse("b64=YQ==; Path=/")?.value, "YQ==", "the first = splits name from value")
    }

    func testValuesAUserAgentIgnores() {
        XCTAssertNil(SetCookie.parse("novalue"))
        XCTAssertNil(SetCookie.parse("=value"))
        XCTAssertNil(SetCookie.parse(""))
        XCTAssertNil(SetCookie.parse("a=b\u{0}c"), "a control character")
        XCTAssertNil(SetCookie.parse("a=" + String(repeating: "x", count: 5000)), "longer than 4096 bytes")
        XCTAssertNil(stored("a=b; Domain=other.com"), "a domain the host is not within")
        XCTAssertNil(stored("a=b; Domain=com"), "a single-label domain other than the host")
        XCTAssertNil(stored("a=b; Domain=example.com", from: URL(string: "http://127.0.0.1/")!), "an address has no subdomains")
    }

    /// The header of the crash found by CI's fuzzing (issue 18): non-ASCII bytes inside `Expires`.
    /// The date is unreadable, so the attribute is ignored and the cookie lives for the session.
    func testAnUnreadableExpiresIsIgnored() throws {
        let bytes: [UInt8] = Array("a=b; Expires=Sun, 06".utf8) + [0xD6, 0xB1, 0x90, 0x89] + Array(" 08:49:37 GMT".utf8)
        let cookie = try XCTUnwrap(stored(String(decoding: bytes, as: UTF8.self)))
        XCTAssertEqual(cookie.name, "a")
        XCTAssertEqual(cookie.value, "b")
        XCTAssertNil(cookie.expiresDate)
        XCTAssertTrue(cookie.isSessionOnly)
        // A `;` followed by a combining mark is one Character but still a separator.
        XCTAssertEqual(SetCookie.parse("a=b;\u{0301} Path=/x")?.value, "b")
    }

    func testMaxAgeWinsOverExpiresAndZeroExpiresAtOnce() throws {
        let hour = try XCTUnwrap(stored("a=b; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=3600"))
        XCTAssertEqual(hour.expiresDate, now.addingTimeInterval(3600))
        let gone = try XCTUnwrap(stored("a=b; Max-Age=0"))
        XCTAssertLessThan(try XCTUnwrap(gone.expiresDate), now)
        XCTAssertLessThan(try XCTUnwrap(stored("a=b; Max-Age=-5")?.expiresDate), now)
        XCTAssertNil(stored("a=b; Max-Age=1h")?.expiresDate, "not a number: ignored")
        XCTAssertNil(stored("a=b; Max-Age=+5")?.expiresDate)
        XCTAssertNotNil(stored("a=b; Max-Age=99999999999999999999999")?.expiresDate, "saturates, no overflow")
    }

    func testHostOnlyAndDomainCookiesAndTheDefaultPath() throws {
        let hostOnly = try XCTUnwrap(stored("a=b"))
        XCTAssertEqual(hostOnly.domain, "www.example.com")
        XCTAssertEqual(hostOnly.path, "/account", "the request path up to its last slash")
        let domain = try XCTUnwrap(stored("a=b; Domain=example.com; Path=relative"))
        XCTAssertEqual(domain.domain, ".example.com")
        XCTAssertEqual(domain.path, "/account", "a path that is not absolute is ignored")
        XCTAssertEqual(stored("a=b", from: URL(string: "http://h/")!)?.path, "/")
        XCTAssertEqual(stored("a=b", from: URL(string: "http://h/top")!)?.path, "/")
        XCTAssertEqual(stored("a=b; Domain=www.example.com")?.domain, ".www.example.com", "the host's own name: its subdomains too")
        XCTAssertEqual(stored("a=b; Domain=127.0.0.1", from: URL(string: "http://127.0.0.1/")!)?.domain, "127.0.0.1")
    }

    /// URLSession joins repeated `Set-Cookie` fields with `, `, as it would any field; an
    /// `Expires` date holds `, ` too.
    func testJoinedFieldsAreSplitOnlyWhereACookieStarts() {
        XCTAssertEqual(SetCookie.splitJoined("a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT, b=2; Path=/,c=3"),
                       ["a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT", "b=2; Path=/", "c=3"])
        XCTAssertEqual(SetCookie.splitJoined("a=1"), ["a=1"])
        XCTAssertEqual(SetCookie.splitJoined("a=1, , =x"), ["a=1, , =x"], "no name before the =: not a cookie start")
        XCTAssertEqual(SetCookie.values(in: HTTPHeaders([("Set-Cookie", "a=1"), ("set-cookie", "b=2, c=3"), ("X", "d=4")])),
                       ["a=1", "b=2", "c=3"])
    }
}
