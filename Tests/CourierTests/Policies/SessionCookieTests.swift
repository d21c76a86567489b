import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The cookies a request carries: those of the session's storage that match its URL by
/// domain, path, `Secure` and expiry (RFC 6265), on every attempt and every redirect.
final class SessionCookieTests: XCTestCase {
    func testACookieSetByARedirectReachesItsTarget() throws {
        let server = try makeServer()
        server.route("/login") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/home", "Set-Cookie": "session=s1; Path=/"])
        }
        server.route("/home") { request, writer in writer.respond(status: 200, text: request.header("Cookie") ?? "none") }
        let network = makeNetwork()

        let first = try result(of: Request<Data>.get(server.url("/login")),
                               on: network)?.get()
        XCTAssertEqual(first.map { String(decoding: $0, as: UTF8.self) }, "session=s1")

        // A second login that changes the cookie: the new value is sent, not the one the
        // previous request carried.
        server.route("/login") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/home", "Set-Cookie": "session=s2; Path=/"])
        }
        let second = try result(of: Request<Data>.get(server.url("/login")),
                                on: network)?.get()
        XCTAssertEqual(second.map { String(decoding: $0, as: UTF8.self) }, "session=s2")
    }

    func testOnlyCookiesMatchingThePathAndSchemeAndStillAliveAreSent() throws {
        let server = try makeServer()
        server.route("/c/set") { _, writer in
            writer.writeHead(status: 200, headers: [
                ("Set-Cookie", "scoped=1; Path=/c"), ("Set-Cookie", "everywhere=1; Path=/"),
                ("Set-Cookie", "secure=1; Path=/; Secure"), ("Set-Cookie", "deleted=1; Path=/; Max-Age=0"),
                ("Set-Cookie", "hour=1; Path=/; Max-Age=3600"), ("Content-Length", "0"),
            ])
        }
        for path in ["/c/show", "/cx/show", "/other"] {
            server.route(path) { request, writer in writer.respond(status: 200, text: request.header("Cookie") ?? "none") }
        }
        let network = makeNetwork()
        _ = try result(of: Request<Data>.get(server.url("/c/set")), on: network)?.get()

        func cookies(at path: String) throws -> [String] {
            let body = try result(of: Request<Data>.get(server.url(path)), on: network)?.get() ?? Data()
            return String(decoding: body, as: UTF8.self).components(separatedBy: "; ").sorted()
        }
        // `Secure` cookies never go over http; `Max-Age=0` deleted one; `/c` covers `/c/…`, not `/cx`.
        XCTAssertEqual(try cookies(at: "/c/show"), ["everywhere=1", "hour=1", "scoped=1"])
        XCTAssertEqual(try cookies(at: "/cx/show"), ["everywhere=1", "hour=1"])
        XCTAssertEqual(try cookies(at: "/other"), ["everywhere=1", "hour=1"])
    }
}
