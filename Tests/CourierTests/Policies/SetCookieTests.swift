@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `Set-Cookie` read by Courier itself (RFC 6265 §5.2, §5.3), never by FoundationNetworking's
/// parser, whose date handling traps on bytes a server chooses.
@Suite struct SetCookieTests {
    private let url = URL(string: "https://www.example.com/account/settings")!
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func stored(_ field: String, from url: URL? = nil) -> HTTPCookie? {
        SetCookie.parse(field)?.storedCookie(for: url ?? self.url, now: now)
    }

    @Test func nameValueAndAttributes() throws {
        let cookie = try #require(SetCookie.parse(" id = a3fWa ; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly; Path=/docs; Domain=.Example.COM; SameSite=Lax"))
        #expect(cookie.name == "id")
        #expect(cookie.value == "a3fWa")
        #expect(cookie.expires == HTTPDate.parse("Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(cookie.path == "/docs")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure)
        #expect(cookie.isHTTPOnly)
        #expect(SetCookie.parse("empty=")?.value == "")
        #expect(SetCookie.parse("b64=YQ==; Path=/")?.value == "YQ==", "the first = splits name from value")
    }

    @Test func valuesAUserAgentIgnores() {
        #expect(SetCookie.parse("novalue") == nil)
        #expect(SetCookie.parse("=value") == nil)
        #expect(SetCookie.parse("") == nil)
        #expect(SetCookie.parse("a=b\u{0}c") == nil, "a control character")
        #expect(SetCookie.parse("a=" + String(repeating: "x", count: 5000)) == nil, "longer than 4096 bytes")
        #expect(stored("a=b; Domain=other.com") == nil, "a domain the host is not within")
        #expect(stored("a=b; Domain=com") == nil, "a single-label domain other than the host")
        #expect(stored("a=b; Domain=example.com", from: URL(string: "http://127.0.0.1/")!) == nil, "an address has no subdomains")
    }

    /// The header of the crash found by CI's fuzzing (issue 18): non-ASCII bytes inside `Expires`.
    /// The date is unreadable, so the attribute is ignored and the cookie lives for the session.
    @Test func anUnreadableExpiresIsIgnored() throws {
        let bytes: [UInt8] = Array("a=b; Expires=Sun, 06".utf8) + [0xD6, 0xB1, 0x90, 0x89] + Array(" 08:49:37 GMT".utf8)
        let cookie = try #require(stored(String(decoding: bytes, as: UTF8.self)))
        #expect(cookie.name == "a")
        #expect(cookie.value == "b")
        #expect(cookie.expiresDate == nil)
        #expect(cookie.isSessionOnly)
        // A `;` followed by a combining mark is one Character but still a separator.
        #expect(SetCookie.parse("a=b;\u{0301} Path=/x")?.value == "b")
    }

    @Test func maxAgeWinsOverExpiresAndZeroExpiresAtOnce() throws {
        let hour = try #require(stored("a=b; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=3600"))
        #expect(hour.expiresDate == now.addingTimeInterval(3600))
        let gone = try #require(stored("a=b; Max-Age=0"))
        #expect(try #require(gone.expiresDate) < now)
        #expect(try #require(stored("a=b; Max-Age=-5")?.expiresDate) < now)
        #expect(stored("a=b; Max-Age=1h")?.expiresDate == nil, "not a number: ignored")
        #expect(stored("a=b; Max-Age=+5")?.expiresDate == nil)
        #expect(stored("a=b; Max-Age=99999999999999999999999")?.expiresDate != nil, "saturates, no overflow")
    }

    @Test func hostOnlyAndDomainCookiesAndTheDefaultPath() throws {
        let hostOnly = try #require(stored("a=b"))
        #expect(hostOnly.domain == "www.example.com")
        #expect(hostOnly.path == "/account", "the request path up to its last slash")
        let domain = try #require(stored("a=b; Domain=example.com; Path=relative"))
        #expect(domain.domain == ".example.com")
        #expect(domain.path == "/account", "a path that is not absolute is ignored")
        #expect(stored("a=b", from: URL(string: "http://h/")!)?.path == "/")
        #expect(stored("a=b", from: URL(string: "http://h/top")!)?.path == "/")
        #expect(stored("a=b; Domain=www.example.com")?.domain == ".www.example.com", "the host's own name: its subdomains too")
        #expect(stored("a=b; Domain=127.0.0.1", from: URL(string: "http://127.0.0.1/")!)?.domain == "127.0.0.1")
    }

    /// URLSession joins repeated `Set-Cookie` fields with `, `, as it would any field; an
    /// `Expires` date holds `, ` too.
    @Test func joinedFieldsAreSplitOnlyWhereACookieStarts() {
        #expect(SetCookie.splitJoined("a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT, b=2; Path=/,c=3")
                == ["a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT", "b=2; Path=/", "c=3"])
        #expect(SetCookie.splitJoined("a=1") == ["a=1"])
        #expect(SetCookie.splitJoined("a=1, , =x") == ["a=1, , =x"], "no name before the =: not a cookie start")
        #expect(SetCookie.values(in: HTTPHeaders([("Set-Cookie", "a=1"), ("set-cookie", "b=2, c=3"), ("X", "d=4")]))
                == ["a=1", "b=2", "c=3"])
    }
}
