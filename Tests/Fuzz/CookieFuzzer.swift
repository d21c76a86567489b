import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// libFuzzer's entry point: one input is the value of a header a server chooses — a `Set-Cookie`
/// (possibly several joined with `, `, as URLSession joins them) or a `Retry-After` — read the way
/// Courier reads them: ``SetCookie``, the cookie storage and the `Cookie` header made from it,
/// ``HTTPDate`` and ``RetryAfter``. No network: thousands of inputs a second.
///
/// Whatever the bytes, nothing may trap (Foundation's date formatter did, on such input: issue
/// 18), a date must be a real one, and a stored cookie must belong to the host that set it.
/// Built and run by scripts/fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookieAndDateHeaders(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes, count > 0 else { return 0 }
    let value = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let fixture = CookieFuzzFixture.shared

    for date in [HTTPDate.parse(value, now: fixture.now), HTTPDate.parseCookieDate(Substring(value))].compactMap({ $0 }) {
        // Years 1 to 9999 (RFC 6265: 1601 on), nothing else.
        guard date.timeIntervalSince1970 >= -62_135_596_800, date.timeIntervalSince1970 < 253_402_300_800 else {
            fatalError("fuzz: a date out of range from \(Array(value.utf8))")
        }
    }
    if let wait = RetryAfter.seconds(from: value, now: fixture.now), !(wait >= 0) {
        fatalError("fuzz: a negative or NaN Retry-After from \(Array(value.utf8))")
    }

    fixture.storage.removeCookies(since: .distantPast)
    let headers = HTTPHeaders([("Set-Cookie", value)])
    fixture.cookies.store(from: headers, for: fixture.url, now: fixture.now)
    for cookie in fixture.storage.cookies ?? [] {
        let domain = cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()) : cookie.domain
        guard fixture.host == domain || fixture.host.hasSuffix("." + domain) else {
            fatalError("fuzz: a cookie for \(cookie.domain) stored from \(fixture.host)")
        }
    }
    // The header the next request would carry: built from what was stored, never trapping.
    _ = fixture.cookies.applying(to: WireRequest(url: fixture.url), now: fixture.now)
    return 0
}

/// What every input shares: an in-memory cookie store and the URL the "response" came from.
final class CookieFuzzFixture: Sendable {
    static let shared = CookieFuzzFixture()

    let url = URL(string: "https://www.courier-fuzz.test/account/page")!
    let host = "www.courier-fuzz.test"
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let storage: HTTPCookieStorage
    let cookies: SessionCookies

    private init() {
        let configuration = URLSessionConfiguration.ephemeral
        guard let storage = configuration.httpCookieStorage, storage !== HTTPCookieStorage.shared,
              let cookies = SessionCookies.forEngineOwnedCookies(configuration) else {
            fatalError("fuzz: an ephemeral configuration has no private cookie storage")
        }
        self.storage = storage
        self.cookies = cookies
    }
}
