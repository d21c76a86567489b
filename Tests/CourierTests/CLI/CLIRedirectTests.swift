import Courier
import Foundation
import XCTest

/// `-L` past a redirect whose body ends only when the server closes the connection: curl stops
/// reading after the head and follows at once; so must courier (the curl engine), rather than
/// wait for a close that a server holding the connection open never sends.
final class CLIRedirectTests: CLITestCase {
    func testFollowsACloseDelimitedRedirectAtOnce() throws {
        let server = try makeServer().withStandardRoutes()
        let held = Gate()
        addTeardownBlock { held.open() }
        for (path, headers) in [("/close", [("Location", "/hello"), ("Connection", "close"), ("Content-Length", "100")]),
                                ("/unframed", [("Location", "/hello")])] {
            server.route(path) { _, writer in
                writer.writeHead(status: 301, headers: headers)
                writer.write(Data("part of a body".utf8))
                held.wait(timeout: 60)   // the connection stays open until the test is over
            }
        }
        for path in ["/close", "/unframed"] {
            let url = server.url(path).absoluteString
            if Network.Engine.automatic.resolved == .curl {
                let result = try start(["-sL", url]).finish(timeout: 10)
                XCTAssertEqual(result.status, 0, "\(path): \(result.stderrText)")
                XCTAssertEqual(result.stdoutText, "hello", path)
            }
            if let curl = try RealCurl.run(["-sL", "-m", "10", url]) {
                XCTAssertEqual(curl.status, 0, "curl \(path)")
                XCTAssertEqual(curl.stdoutText, "hello", "curl \(path)")
            }
        }
    }

    /// A `Location` with spaces and bytes past ASCII is followed as libcurl reads it: `%20` in
    /// the path, `+` in the query, lower-case `%xx` for the rest (the curl engine).
    func testALocationWithSpacesAndUTF8IsFollowedAsCurlEncodesIt() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/odd") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/echo/a b/\u{e9}?name=d a niel&x=\u{e9}"], body: Data())
        }
        let arguments = ["-sL", "-o", "/dev/null", server.url("/odd").absoluteString]
        func lastTarget() throws -> String {
            let request = try XCTUnwrap(server.receivedRequests.last)
            return request.path + (request.query.map { "?" + $0 } ?? "")
        }
        guard Network.Engine.automatic.resolved == .curl else { return }
        XCTAssertEqual(try start(arguments).finish().status, 0)
        XCTAssertEqual(try lastTarget(), "/echo/a%20b/%c3%a9?name=d+a+niel&x=%c3%a9")
        if let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.status, 0)
            XCTAssertEqual(try lastTarget(), "/echo/a%20b/%c3%a9?name=d+a+niel&x=%c3%a9", "as curl")
        }
    }

    /// `--location-trusted` (libcurl's CURLOPT_UNRESTRICTED_AUTH, applied by the curl engine's
    /// own redirect following): `-u`'s credentials go to the other origin a redirect leads to;
    /// without it they stay behind, as in curl. URLSession: exit 4.
    func testLocationTrustedSendsCredentialsToTheNextOrigin() throws {
        let target = try makeServer().withStandardRoutes()
        let origin = try makeServer()
        origin.route("/away") { _, writer in
            writer.respond(status: 302, headers: ["Location": target.url("/echo").absoluteString], body: Data())
        }
        let arguments = ["-s", "-o", "/dev/null", "-u", "robot:hunter2", origin.url("/away").absoluteString]
        let trusted = try start(arguments + ["--location-trusted"]).finish()
        guard Network.Engine.automatic.resolved == .curl else {
            XCTAssertEqual(trusted.status, 4, trusted.stderrText)
            return
        }
        XCTAssertEqual(trusted.status, 0, trusted.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: target).header("Authorization"), "Basic cm9ib3Q6aHVudGVyMg==")
        XCTAssertEqual(try start(["-L"] + arguments).finish().status, 0)
        XCTAssertNil(try lastRequest(to: "/echo", on: target).header("Authorization"), "-L alone keeps them behind")
        if let curl = try RealCurl.run(arguments + ["--location-trusted"]) {
            XCTAssertEqual(curl.status, 0)
            XCTAssertEqual(try lastRequest(to: "/echo", on: target).header("Authorization"), "Basic cm9ib3Q6aHVudGVyMg==", "as curl")
        }
    }

    /// `--post301`, `--post302`, `--post303` (libcurl's CURLOPT_POSTREDIR, applied by the curl
    /// engine's own redirect following): a POST stays a POST with its body after that status;
    /// without them it becomes a GET without body, as in curl. URLSession: exit 4.
    func testPostRedirectOptionsKeepThePOST() throws {
        let server = try makeServer()
        for status in [301, 302, 303] {
            server.route("/moved\(status)") { _, writer in
                writer.respond(status: status, headers: ["Location": "/landed"], body: Data())
            }
        }
        server.route("/landed") { request, writer in
            writer.respond(status: 200, text: "\(request.method) \(String(decoding: request.body, as: UTF8.self))")
        }
        for status in [301, 302, 303] {
            let arguments = ["-sL", "-d", "payload", server.url("/moved\(status)").absoluteString]
            let kept = try start(arguments + ["--post\(status)"]).finish()
            guard Network.Engine.automatic.resolved == .curl else {
                XCTAssertEqual(kept.status, 4, kept.stderrText)
                continue
            }
            XCTAssertEqual(kept.stdoutText, "POST payload", "--post\(status): \(kept.stderrText)")
            XCTAssertEqual(try start(arguments).finish().stdoutText, "GET ", "\(status) without it")
            if let curl = try RealCurl.run(arguments + ["--post\(status)"]) {
                XCTAssertEqual(curl.stdoutText, kept.stdoutText, "as curl (\(status))")
            }
        }
    }
}
