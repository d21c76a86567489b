import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A request that cannot be sent safely is an error before anything is sent: header names that
/// are not tokens, header values and credentials with control characters, meaningless timeouts.
final class RequestValidationTests: XCTestCase {
    /// A request whose `URLRequest` is built by hand, as an app overriding `makeURLRequest` would.
    private struct HandBuilt: NetworkRequest {
        typealias Output = Data
        let url: URL
        var fields: [String: String] = [:]
        var timeoutInterval: TimeInterval?
        func makeURL() throws -> URL { url }
        func makeURLRequest() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.allHTTPHeaderFields = fields
            if let timeoutInterval { request.timeoutInterval = timeoutInterval }
            return request
        }
        func output(from body: Data, response: HTTPResponse) throws -> Data { body }
    }

    /// An interceptor that adds one header field with `setValue`.
    private struct AddsHeader: RequestInterceptor {
        let name: String
        let value: String
        func adapt(_ request: URLRequest, context: RequestContext,
                   completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            var request = request
            request.setValue(value, forHTTPHeaderField: name)
            completion(.success(request))
        }
    }

    /// Asserts an `invalidRequest` error whose message contains `mentions` and none of `secrets`.
    private func assertInvalidRequest<T>(_ result: Result<T, any Error>?, mentions: String, secrets: [String] = [],
                                         file: StaticString = #filePath, line: UInt = #line) {
        guard case let .invalidRequest(message)? = networkError(result, file: file, line: line) else {
            return XCTFail("expected invalidRequest, got \(String(describing: result))", file: file, line: line)
        }
        XCTAssertTrue(message.contains(mentions), "\(message) does not mention \(mentions)", file: file, line: line)
        for secret in secrets {
            XCTAssertFalse(message.contains(secret), "\(message) shows \(secret)", file: file, line: line)
        }
    }

    func testHeaderNameWithCRLFIsRefusedOnEveryPathBeforeAnythingIsSent() throws {
        let server = try makeServer().withStandardRoutes()
        let name = "X-A\r\nInjected"
        let url = server.url("/hello")

        assertInvalidRequest(result(of: Request<Data>.get(url, headers: [name: "v"]), on: makeNetwork()),
                             mentions: #""X-A\r\nInjected""#)

        let withDefaults = makeNetwork()
        withDefaults.defaults.headers = [name: "v"]
        assertInvalidRequest(result(of: Request<Data>.get(url), on: withDefaults), mentions: #""X-A\r\nInjected""#)

        let withInterceptor = makeNetwork()
        withInterceptor.interceptors = [AddsHeader(name: name, value: "v")]
        assertInvalidRequest(result(of: Request<Data>.get(url), on: withInterceptor), mentions: #""X-A\r\nInjected""#)

        assertInvalidRequest(result(of: HandBuilt(url: url, fields: [name: "v"]), on: makeNetwork()),
                             mentions: #""X-A\r\nInjected""#)

        for bad in ["", "X A", "X:A", "Ünicode", "X\u{0}A"] {
            assertInvalidRequest(result(of: Request<Data>.get(url, headers: [bad: "v"]), on: makeNetwork()), mentions: "header name")
        }
        XCTAssertEqual(server.connectionCount, 0, "nothing may reach the server")
    }

    func testSmuggledSecondRequestNeverReachesTheWire() throws {
        let capture = try RawCaptureServer()
        addTeardownBlock { capture.stop() }
        // Without the check, FoundationNetworking writes this name as it is: the request head ends
        // after "X-A" and the rest arrives as a second request.
        let name = "X-A\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\nX-B"
        let network = makeNetwork()
        assertInvalidRequest(result(of: Request<Data>.get(capture.url, headers: [name: "v"]), on: network), mentions: "X-A")
        // An interceptor that sets the name is caught as well.
        network.interceptors = [AddsHeader(name: name, value: "v")]
        assertInvalidRequest(result(of: Request<Data>.get(capture.url), on: network), mentions: "X-A")

        let received = String(decoding: capture.received, as: UTF8.self)
        XCTAssertFalse(received.lowercased().contains("smuggled"), received)
        XCTAssertEqual(capture.connectionCount, 0)
    }

    func testHeaderValuesWithCROrLFOrNULAreRefusedNotDropped() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/hello")
        let values = ["a\r\nInjected: 1", "a\rb", "a\nb", "a\0b", "a\u{1}b", "a\u{7F}b"]
        for value in values {
            assertInvalidRequest(result(of: Request<Data>.get(url, headers: ["X-Trace": value]), on: makeNetwork()),
                                 mentions: #""X-Trace""#, secrets: [value])
            let withDefaults = makeNetwork()
            withDefaults.defaults.headers = ["X-Default": value]
            assertInvalidRequest(result(of: Request<Data>.get(url), on: withDefaults), mentions: #""X-Default""#, secrets: [value])
        }
        XCTAssertEqual(server.connectionCount, 0, "nothing may reach the server")
    }

    func testValueInjectedThroughAHandBuiltRequestNeverReachesTheWire() throws {
        let capture = try RawCaptureServer()
        addTeardownBlock { capture.stop() }
        // `allHTTPHeaderFields` keeps CR LF in a value, and FoundationNetworking sends it.
        let request = HandBuilt(url: capture.url, fields: ["X-A": "a\r\nInjected: 1"])
        assertInvalidRequest(result(of: request, on: makeNetwork()), mentions: #""X-A""#, secrets: ["Injected"])
        XCTAssertFalse(String(decoding: capture.received, as: UTF8.self).contains("Injected"))
        XCTAssertEqual(capture.connectionCount, 0)
    }

    func testCredentialsWithControlCharactersAreRefusedWithoutShowingThem() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo")
        let cases: [(Authentication, String)] = [
            (.bearer("secret-token\n"), "bearer token"),
            (.bearer("secret\r\ntoken"), "bearer token"),
            (.basic(username: "user", password: "secret\0word"), "Basic credentials"),
            (.basic(username: "us:er", password: "secretword"), "colon"),
            (.raw("Token secret\n"), "Authorization"),
        ]
        for (authentication, mention) in cases {
            let request = Request<Data>(url: url, authentication: authentication)
            assertInvalidRequest(result(of: request, on: makeNetwork()), mentions: mention, secrets: ["secret"])
        }
        // The refresher's token is checked too: `setValue` would drop it and send no credentials.
        let network = makeNetwork()
        network.interceptors = [BearerTokenRefresher(token: "secret-token\n") { done in done(.success("unused")) }]
        assertInvalidRequest(result(of: Request<Data>.get(url), on: network), mentions: "bearer token", secrets: ["secret"])
        XCTAssertEqual(server.connectionCount, 0, "nothing may reach the server")
    }

    func testTabsAndNonASCIIValuesAndTokenSymbolsAreSent() throws {
        let server = try makeServer().withStandardRoutes()
        let headers = ["X-Tab": "a\tb", "X-Text": "café", "X-!#$%&'*+-.^_`|~": "1"]
        XCTAssertNoThrow(try result(of: Request<Data>.get(server.url("/hello"), headers: headers), on: makeNetwork())?.get())
        let received = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(received.header("X-Tab"), "a\tb")
        XCTAssertEqual(received.header("X-!#$%&'*+-.^_`|~"), "1")
    }

    // MARK: - Timeouts

    func testAbsurdlyLargeTimeoutsWork() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        for timeout in [1e300, 1e16, .greatestFiniteMagnitude] {
            let request = Request<Data>(url: server.url("/hello"), timeout: timeout)
            XCTAssertEqual(try result(of: request.string(), on: network)?.get(), "hello", "timeout \(timeout)")
        }
        // Whoever builds the URLRequest, FoundationNetworking only ever gets a timeout it can take.
        for interval in [1e300, -1e300, .nan, .infinity] {
            let request = HandBuilt(url: server.url("/hello"), timeoutInterval: interval)
            XCTAssertEqual(try result(of: request, on: network)?.get(), Data("hello".utf8), "timeoutInterval \(interval)")
        }
    }

    func testNegativeOrNaNTimeoutsAreInvalidRequests() throws {
        let server = try makeServer().withStandardRoutes()
        for timeout in [-1, -.infinity, .nan] as [TimeInterval] {
            let request = Request<Data>(url: server.url("/hello"), timeout: timeout)
            assertInvalidRequest(result(of: request, on: makeNetwork()), mentions: "timeout")
        }
        XCTAssertEqual(server.connectionCount, 0)
    }

    func testInfiniteTimeoutMeansNoDeadline() throws {
        let server = try makeServer().withStandardRoutes()
        let request = Request<Data>(url: server.url("/hello"), timeout: .infinity)
        XCTAssertEqual(try result(of: request.string(), on: makeNetwork())?.get(), "hello")
    }
}
