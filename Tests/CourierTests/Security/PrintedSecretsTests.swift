import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// However a value is printed — `description`, `debugDescription`, `String(describing:)`,
/// `String(reflecting:)`, `"\(value)"`, `localizedDescription`, `dump` — a URL's password, a
/// secret query parameter, an `Authorization`, `Cookie` or `Set-Cookie` value and credentials
/// never show: every public type prints through ``Redaction/standard``, as the logging observer
/// does.
final class PrintedSecretsTests: XCTestCase {
    private static let password = "PASSWORD-1f3a"
    private static let token = "TOKEN-9c2e"
    private static let secrets = [password, token]

    /// Every printed form of `value`, labelled.
    private func printings(of value: Any) -> [(String, String)] {
        var dumped = ""
        dump(value, to: &dumped, maxDepth: 20)
        var forms = [
            ("String(describing:)", String(describing: value)),
            ("String(reflecting:)", String(reflecting: value)),
            ("interpolation", "\(value)"),
            ("dump", dumped),
        ]
        if let value = value as? CustomStringConvertible { forms.append(("description", value.description)) }
        if let value = value as? CustomDebugStringConvertible { forms.append(("debugDescription", value.debugDescription)) }
        if let error = value as? any Error {
            forms.append(("localizedDescription", error.localizedDescription))
            var printed = ""
            print(error, to: &printed)
            forms.append(("print", printed))
        }
        return forms
    }

    private func assertNoSecret(in value: Any, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for (form, text) in printings(of: value) {
            for secret in Self.secrets {
                XCTAssertFalse(text.contains(secret), "\(what), \(form): \(text)", file: file, line: line)
            }
        }
    }

    /// `transport` for `NetworkError.transport(…)`, from its debug description.
    private func caseName(_ error: NetworkError) -> String {
        String(String(reflecting: error).dropFirst("NetworkError.".count).prefix { $0 != ":" })
    }

    private func secretURL(port: Int = 9, path: String = "/x") -> URL {
        URL(string: "http://alice:\(Self.password)@127.0.0.1:\(port)\(path)?access_token=\(Self.token)&page=2")!
    }

    private var secretResponse: HTTPResponse {
        HTTPResponse(statusCode: 302, headers: [
            "Location": secretURL(path: "/next").absoluteString, "Set-Cookie": "session=\(Self.token)",
            "Content-Location": "/x?token=\(Self.token)",
        ], url: secretURL(), body: Data("body".utf8))
    }

    private var secretURLError: URLError {
        URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: secretURL(),
                                                  NSLocalizedDescriptionKey: "Failed to connect to \(secretURL().absoluteString)"])
    }

    // MARK: - Every case of NetworkError

    func testEveryNetworkErrorCaseHidesTheSecretsOfItsURLsAndHeaders() {
        let response = secretResponse
        let urlError = secretURLError
        let errors: [NetworkError] = [
            .invalidURL(Redaction.standard.redact(secretURL())),
            .invalidRequest("the value of header \"X\" contains a line feed (LF)"),
            .cancelled,
            .timedOut,
            .transport(urlError),
            .tls(.untrustedCertificate, urlError),
            .proxy(.tunnelRefused(status: 407), urlError),
            .curlOptionRefused(option: "CURLOPT_PROTOCOLS_STR", libcurlVersion: "7.68.0", urlError),
            .invalidResponse("Weird reply from \(secretURL().absoluteString)"),
            .incompleteBody(URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: secretURL()])),
            .httpStatus(response),
            .decodingFailed(DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad")), response),
            .unexpectedContentType(expected: ["application/json"], response: response),
            .encodingFailed(urlError),
            .wouldDeadlock("called on the delegate queue"),
            .fileSystem(URL(fileURLWithPath: "/tmp/file"), POSIXError(.ENOSPC)),
            .interceptorFailed(urlError),
            .responseTooLarge(100),
            .limitExceeded(LimitExceeded(kind: .decompressionRatio, limit: 10, received: 20, encodedBytes: 1)),
            .tooManyRedirects(response),
            .unsupportedRedirect("file", response),
            .destinationExists(URL(fileURLWithPath: "/tmp/file")),
        ]
        XCTAssertEqual(Set(errors.map(Self.listedCase)).count, Self.caseCount, "every case of NetworkError is listed once")
        for error in errors {
            assertNoSecret(in: error, "\(caseName(error))")
            // Wrapped in a Result or an Optional, as callers print them.
            assertNoSecret(in: Result<Data, NetworkError>.failure(error), "Result of \(caseName(error))")
            assertNoSecret(in: Optional(error) as Any, "Optional \(caseName(error))")
        }
        // Redacted, not dropped: the place is still there to read.
        XCTAssertTrue(NetworkError.httpStatus(response).description.contains("alice:<redacted>@127.0.0.1:9"))
        XCTAssertTrue(NetworkError.transport(urlError).description.contains("access_token=<redacted>&page=2"))
    }

    /// Exhaustive, with no `default`: a new case of NetworkError does not compile here until it
    /// is numbered, and the count above then asks for it in the list.
    private static func listedCase(_ error: NetworkError) -> Int {
        switch error {
        case .invalidURL: return 0
        case .invalidRequest: return 1
        case .cancelled: return 2
        case .timedOut: return 3
        case .transport: return 4
        case .tls: return 5
        case .proxy: return 6
        case .curlOptionRefused: return 7
        case .invalidResponse: return 8
        case .incompleteBody: return 9
        case .httpStatus: return 10
        case .decodingFailed: return 11
        case .unexpectedContentType: return 12
        case .encodingFailed: return 13
        case .wouldDeadlock: return 14
        case .fileSystem: return 15
        case .interceptorFailed: return 16
        case .responseTooLarge: return 17
        case .limitExceeded: return 18
        case .tooManyRedirects: return 19
        case .unsupportedRedirect: return 20
        case .destinationExists: return 21
        }
    }

    private static let caseCount = 22

    func testATransportErrorSaysWhatHappenedWhereAndWhatToDo() {
        let description = NetworkError.transport(secretURLError).description
        XCTAssertTrue(description.hasPrefix("Could not connect to 127.0.0.1:9 (connection refused): is the server running"), description)
        XCTAssertFalse(description.contains("Error Domain"), description)
        XCTAssertEqual(String(reflecting: NetworkError.transport(secretURLError)), "NetworkError.transport: " + description)
        let lost = NetworkError.transport(URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://h.test/")!]))
        XCTAssertTrue(lost.description.hasPrefix("The connection to h.test:443 was lost"), lost.description)
    }

    // MARK: - Every public type that holds a URL, headers or credentials

    func testEveryPublicValueHidesItsSecrets() throws {
        let response = secretResponse
        var request = Request<Data>(method: .post, url: secretURL(), headers: ["Authorization": "Bearer \(Self.token)", "Cookie": "s=\(Self.token)"],
                                    body: .text("hello"), authentication: .basic(username: "alice", password: Self.password))
        request.queryItems = [URLQueryItem(name: "access_token", value: Self.token)]
        let builder = URLBuilder(host: "127.0.0.1").addingQueryItem(name: "token", value: Self.token)
        let values: [(String, Any)] = [
            ("HTTPResponse", response),
            ("HTTPHeaders", response.headers),
            ("Response", Response(value: Data("x".utf8), response: response)),
            ("Request", request),
            ("Request from a string", Request<Data>.get(secretURL().absoluteString)),
            ("Request from a builder", Request<Data>(method: .get, location: .builder(builder)) { body, _ in body }),
            ("RequestWithResponse", request.withResponse()),
            ("Authentication.basic", Authentication.basic(username: "alice", password: Self.password)),
            ("Authentication.bearer", Authentication.bearer(Self.token)),
            ("Authentication.raw", Authentication.raw("Token \(Self.token)")),
            ("URLBuilder", builder),
            ("RequestLocation", RequestLocation.url(secretURL())),
            ("RequestContext", RequestContext(id: 1, attempt: 1, method: .get, url: secretURL())),
            ("NetworkDefaults", NetworkDefaults(baseURL: secretURL(), headers: ["Authorization": Self.token],
                                                queryItems: [URLQueryItem(name: "token", value: Self.token)])),
            ("StubResponse", StubResponse(statusCode: 200, headers: ["Set-Cookie": Self.token])),
            ("ServerError", ServerError(model: "problem", response: response)),
            ("TransferEvent", TransferEvent<Response<Data>>.finished(Response(value: Data(), response: response))),
        ]
        for (what, value) in values {
            assertNoSecret(in: value, what)
        }
        XCTAssertEqual(request.description, "POST http://alice:<redacted>@127.0.0.1:9/x?access_token=<redacted>&page=2&access_token=<redacted>")
        XCTAssertEqual(Authentication.basic(username: "alice", password: Self.password).description,
                       #".basic(username: "alice", password: <redacted>)"#)
    }

    func testLiveObjectsDoNotShowTheRequestsTheyHoldOrTheirTokens() throws {
        let network = makeNetwork()
        network.defaults = NetworkDefaults(baseURL: secretURL(), headers: ["Authorization": Self.token])
        let refresher = BearerTokenRefresher(token: Self.token) { $0(.success(Self.token)) }
        network.interceptors = [refresher]
        let server = try makeServer()
        let gate = holdRequests(at: "/held", on: server)
        let task = network.schedule(Request<Data>.get(secretURL(port: server.port, path: "/held"))) { _ in }
        let stub = StubServer()
        stub.on(.get, "/x", headers: ["Authorization": "Bearer \(Self.token)"], reply: .status(200, headers: ["Set-Cookie": Self.token]))
        _ = Network(stub: stub).scheduleSynchronously(Request<Data>(url: secretURL(), headers: ["Authorization": "Bearer \(Self.token)"]), timeout: 10)

        for (what, value) in [("Network", network), ("NetworkTask", task), ("BearerTokenRefresher", refresher),
                              ("StubServer", stub), ("LoggingObserver", LoggingObserver { _ in })] as [(String, Any)] {
            assertNoSecret(in: value, what)
        }
        XCTAssertEqual(stub.recordedRequests.count, 1, "the stub did answer (so it held a request to show)")
        gate.open()
    }

    // MARK: - Real failures, on the engine under test

    /// Each failure a server (or its absence) can cause, reached for real through a URL with a
    /// password and a token: transport, `httpStatus`, `tooManyRedirects`, `unsupportedRedirect`,
    /// `incompleteBody`.
    func testRealFailuresPrintWithoutTheirSecrets() throws {
        let server = try makeServer()
        server.route("/status") { _, writer in writer.respond(status: 503, headers: ["Set-Cookie": "s=\(Self.token)"], text: "busy") }
        server.route("/loop") { request, writer in
            writer.respond(status: 302, headers: ["Location": "/loop?token=\(Self.token)"], text: "again")
        }
        server.route("/file") { _, writer in
            writer.respond(status: 302, headers: ["Location": "file:///etc/passwd?token=\(Self.token)"], text: "")
        }
        server.routeCuttingBody("/cut", announcing: 100, sending: 10)
        let network = makeNetwork()
        network.maximumRedirects = 2
        let cases: [(String, URL)] = [
            ("transport", secretURL(port: TestServer.unusedPort())),
            ("httpStatus", secretURL(port: server.port, path: "/status")),
            ("tooManyRedirects", secretURL(port: server.port, path: "/loop")),
            ("unsupportedRedirect", secretURL(port: server.port, path: "/file")),
            ("incompleteBody", secretURL(port: server.port, path: "/cut")),
        ]
        for (expected, url) in cases {
            let error = try XCTUnwrap(networkError(result(of: Request<Data>.get(url), on: network)), expected)
            XCTAssertEqual(caseName(error), expected, "\(url.path): \(error)")
            assertNoSecret(in: error, "\(expected) (\(network.engine))")
            XCTAssertTrue(error.description.contains("<redacted>"), "the URL is shown, redacted: \(error.description)")
        }
    }
}
