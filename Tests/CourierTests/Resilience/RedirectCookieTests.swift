import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A redirect Courier follows carries the cookies of the session's storage for its target,
/// those the redirect itself set included, as URLSession does for a task it starts.
final class RedirectCookieTests: XCTestCase {
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
}
