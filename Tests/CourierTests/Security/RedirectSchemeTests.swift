import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A redirect to a scheme other than http(s) is refused and reported as such: never rewritten
/// into a request to the same server, never blamed on the caller's URL.
final class RedirectSchemeTests: XCTestCase {
    /// `/redirect?to=<Location>` answers `302` with that `Location`. `/etc/passwd` and friends
    /// answer what FoundationNetworking's rewrite of `file:` and co. would fetch.
    private func makeRedirectingServer() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/redirect") { request, writer in
            writer.respond(status: 302, headers: ["Location": request.queryItems["to"] ?? "/"], text: "moved")
        }
        for path in ["/etc/passwd", "/alert(1)", "/text/plain,hi", "/a@b"] {
            server.route(path) { _, writer in writer.respond(status: 200, text: "root:x:0:0 (not what was asked for)") }
        }
        return server
    }

    /// Everything but letters and digits percent-encoded: a `://` left in the query would make
    /// the test server read the target as an absolute URL.
    private func redirect(_ server: TestServer, to location: String) -> URL {
        server.url("/redirect?to=" + location.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    /// Every scheme other than http(s), in both ways FoundationNetworking treats them: `file:`,
    /// `javascript:`, `data:`, `mailto:` are rewritten into same-origin http URLs before the
    /// delegate sees them; `ftp:`, `gopher:`, `dict:` are proposed as they are.
    private func refusedLocations(_ server: TestServer) -> [(location: String, scheme: String)] {
        [
            ("file:///etc/passwd", "file"), ("file:/etc/passwd", "file"), ("FILE:///etc/passwd", "file"),
            ("javascript:alert(1)", "javascript"), ("data:text/plain,hi", "data"), ("mailto:a@b", "mailto"),
            ("ftp://127.0.0.1:\(server.port)/x", "ftp"), ("gopher://127.0.0.1:\(server.port)/x", "gopher"),
            ("dict://127.0.0.1:\(server.port)/x", "dict"),
        ]
    }

    func testRedirectToAnotherSchemeIsRefusedAndNothingElseIsFetched() throws {
        let server = try makeRedirectingServer()
        let network = makeNetwork()
        for (location, scheme) in refusedLocations(server) {
            server.resetStatistics()
            let outcome = result(of: Request<Data>.get(redirect(server, to: location)), on: network)
            guard case let .unsupportedRedirect(refused, response)? = networkError(outcome) else {
                XCTFail("\(location): expected unsupportedRedirect, got \(String(describing: outcome))")
                continue
            }
            XCTAssertEqual(refused, scheme, location)
            XCTAssertEqual(response.statusCode, 302, location)
            XCTAssertEqual(response.headers["Location"], location)
            XCTAssertEqual(NetworkError.unsupportedRedirect(refused, response).statusCode, 302)
            let description = NetworkError.unsupportedRedirect(refused, response).localizedDescription
            XCTAssertTrue(description.contains("unsupported scheme '\(scheme)'"), description)
            XCTAssertEqual(server.receivedRequests.map(\.path), ["/redirect"], "\(location): no second request")
        }
    }

    func testDownloadRefusesTheRedirectToo() throws {
        let server = try makeRedirectingServer()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("passwd")
        let outcome = makeNetwork().downloadSynchronously(Request<Data>.get(redirect(server, to: "file:///etc/passwd")),
                                                          to: destination, timeout: 30)
        guard case let .unsupportedRedirect(scheme, _)? = networkError(outcome) else {
            return XCTFail("expected unsupportedRedirect, got \(outcome)")
        }
        XCTAssertEqual(scheme, "file")
        XCTAssertEqual(server.receivedRequests.map(\.path), ["/redirect"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testRelativeAndHTTPRedirectsAreStillFollowed() throws {
        let server = try makeRedirectingServer()
        let network = makeNetwork()
        let locations = ["/hello", "hello", "//127.0.0.1:\(server.port)/hello", "http://127.0.0.1:\(server.port)/hello",
                         "HTTP://127.0.0.1:\(server.port)/hello"]
        for location in locations {
            let request = Request<Data>.get(redirect(server, to: location)).string()
            XCTAssertEqual(try result(of: request, on: network)?.get(), "hello", location)
        }
    }
}
