import Foundation
import XCTest

/// The request head's fields in the order curl sends them: `Host`, then the fields curl makes
/// from its options (`Authorization`, `Range`, `User-Agent`, `Accept`, `Referer`, `Cookie`),
/// then the `-H` ones, then the body's `Content-Length` and `Content-Type`. curl's test suite
/// compares the request bytes, order included. The curl engine only: URLSession on Linux builds
/// the head from a dictionary, in an order courier cannot choose.
final class CLIHeaderOrderTests: CLITestCase {
    private static let expected = ["Host", "Authorization", "User-Agent", "Accept", "Referer", "Cookie", "X-Extra",
                                   "Content-Length", "Content-Type"]

    func testTheCurlEngineSendsTheFieldsInCurlsOrder() throws {
        let server = try makeServer().withStandardRoutes()
        let arguments = ["-s", "-o", "/dev/null", "-u", "a:b", "-A", "agent", "-e", "http://referer/", "-b", "x=1",
                         "-H", "X-Extra: 1", "-d", "abc", server.url("/echo").absoluteString]
        let result = try start(["--engine", "curl"] + arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).headers.map(\.name), Self.expected)
        if let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.status, 0, curl.stderrText)
            XCTAssertEqual(try lastRequest(to: "/echo", on: server).headers.map(\.name), Self.expected, "curl's own order")
        }
    }

    func testARequestsOwnContentTypeGoesWithTheOtherFields() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo").absoluteString
        // A -H Content-Type is one of curl's custom lines, before the body's length; a form's
        // own type stays after it. (One custom field each: courier keeps no order among them.)
        let cases: [([String], [String])] = [
            (["-d", "x", "-H", "Content-Type: silly/type", url], ["Host", "User-Agent", "Accept", "Content-Type", "Content-Length"]),
            (["-d", "x", "-H", "Accept: text/plain", url], ["Host", "User-Agent", "Accept", "Content-Length", "Content-Type"]),
        ]
        for (arguments, expected) in cases {
            let result = try start(["--engine", "curl", "-s", "-o", "/dev/null"] + arguments).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertEqual(try lastRequest(to: "/echo", on: server).headers.map(\.name), expected, "\(arguments)")
            if let curl = try RealCurl.run(["-s", "-o", "/dev/null"] + arguments) {
                XCTAssertEqual(curl.status, 0, curl.stderrText)
                XCTAssertEqual(try lastRequest(to: "/echo", on: server).headers.map(\.name), expected, "curl's own order: \(arguments)")
            }
        }
    }

    func testThroughAnHTTPProxyProxyConnectionComesAfterTheReferer() throws {
        let proxy = try makeProxy()
        let expected = ["Host", "User-Agent", "Accept", "Referer", "Proxy-Connection", "Cookie", "X-Extra"]
        let arguments = ["-s", "-x", "127.0.0.1:\(proxy.port)", "-e", "http://referer/", "-b", "a=1", "-H", "X-Extra: 1",
                         "http://\(ProxyTests.originHost)/hello"]
        // A --noproxy list that does not name the host changes nothing (libcurl's matching:
        // the host, or a domain it ends in).
        for extra in [[], ["--noproxy", "127.0.0.1,other.\(ProxyTests.originHost),.elsewhere"]] {
            for client in ["courier", "curl"] {
                let result = client == "courier" ? try start(["--engine", "curl"] + extra + arguments).finish()
                    : try RealCurl.run(extra + arguments)
                guard let result else { continue }
                XCTAssertEqual(result.status, 0, "\(client): \(result.stderrText)")
                let request = try lastRequest(to: "/hello", on: proxy)
                XCTAssertEqual(request.headers.map(\.name), expected, "\(client) \(extra)")
                XCTAssertEqual(request.headerValues("Proxy-Connection"), ["Keep-Alive"], "once, \(client)")
            }
        }
    }

    func testAnUploadAsksForContinueLastAsCurlDoes() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeFile(named: "up.txt", content: Data("hello\n".utf8))
        let url = server.url("/echo").absoluteString
        let expected = ["Host", "User-Agent", "Accept", "X-Extra", "Content-Length", "Expect"]
        for client in ["courier", "curl"] {
            let arguments = ["-s", "-o", "/dev/null", "-T", file.path, "-H", "X-Extra: 1", url]
            let result = client == "courier" ? try start(["--engine", "curl"] + arguments).finish() : try RealCurl.run(arguments)
            guard let result else { continue }
            XCTAssertEqual(result.status, 0, "\(client): \(result.stderrText)")
            let request = try lastRequest(to: "/echo", on: server)
            XCTAssertEqual(request.body, Data("hello\n".utf8), client)
            // Measured on the libcurl curl 7.88.1 runs on; with the matrix's libcurl 8.14.1 no
            // Expect line reached the server for this 6-byte body (libcurl's own decision).
            guard RealCurl.courierRunsOnTheMeasuredLibcurl else { continue }
            XCTAssertEqual(request.headers.map(\.name), expected, client)
            XCTAssertEqual(request.header("Expect"), "100-continue", client)
        }
        // -H 'Expect:' sends none, as in curl.
        XCTAssertEqual(try courier("--engine", "curl", "-s", "-T", file.path, "-H", "Expect:", url).status, 0)
        XCTAssertNil(try lastRequest(to: "/echo", on: server).header("Expect"))
    }

    func testARangeGoesBeforeTheUserAgentAndTheDefaultUserAgentBeforeAccept() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try start(["--engine", "curl", "-s", "-o", "/dev/null", "-r", "0-1", server.url("/hello").absoluteString]).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try lastRequest(to: "/hello", on: server).headers.map(\.name), ["Host", "Range", "User-Agent", "Accept"])
    }

    /// The environment's proxy (which a `no_proxy` list may bypass) keeps libcurl's own line,
    /// once, where libcurl writes it; the `-x` one is in curl's place (the test above).
    func testThroughTheEnvironmentsProxyProxyConnectionIsLibcurlsOwnOnce() throws {
        let proxy = try makeProxy()
        let origin = "http://\(ProxyTests.originHost)/hello"
        let viaEnvironment = try start(["--engine", "curl", "-s", "-H", "X-Extra: 1", origin],
                                       environment: ["http_proxy": "http://u:p@127.0.0.1:\(proxy.port)"]).finish()
        XCTAssertEqual(viaEnvironment.status, 0, viaEnvironment.stderrText)
        XCTAssertEqual(try lastRequest(to: "/hello", on: proxy).headers.map(\.name),
                       ["Host", "Proxy-Authorization", "Proxy-Connection", "User-Agent", "Accept", "X-Extra"])
    }
}
