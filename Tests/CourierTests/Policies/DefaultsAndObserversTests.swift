import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Session defaults, interceptors, observers and typed error bodies.
final class DefaultsAndObserversTests: XCTestCase {
    func testRelativeRequestsUseTheBaseURLAndDefaultsCanChangeAtRunTime() throws {
        let server = try makeServer()
        server.route("/v1/users/7") { request, writer in
            writer.respond(status: 200, text: "\(request.header("X-Token") ?? "-") \(request.query ?? "-")")
        }
        let network = makeNetwork()
        network.defaults = NetworkDefaults(baseURL: server.url("/v1"), queryItems: [URLQueryItem(name: "lang", value: "en")])
        XCTAssertEqual(try result(of: Request<Data>.get("users/7").string(), on: network)?.get(), "- lang=en")

        // From another thread, as after a sign-in.
        let updated = expectation(description: "updated")
        DispatchQueue.global().async {
            network.defaults.headers["X-Token"] = "abc"
            updated.fulfill()
        }
        wait(for: [updated], timeout: 5)
        XCTAssertEqual(try result(of: Request<Data>.get("/users/7?lang=fr").string(), on: network)?.get(), "abc lang=fr",
                       "the request's own values win")
    }

    /// `//host/path` names another host: it is refused, never taken as a path under the base.
    func testASchemeLessURLWithAHostIsRefusedNotResolvedAgainstTheBase() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        network.defaults = NetworkDefaults(baseURL: server.url("/"))
        let outcome = try XCTUnwrap(result(of: Request<Data>.get("//elsewhere.invalid/hello"), on: network))
        guard case let .failure(error as NetworkError) = outcome, case let .invalidURL(reason) = error else {
            return XCTFail("expected invalidURL, got \(outcome)")
        }
        XCTAssertTrue(reason.contains("only http and https"), reason)
        XCTAssertEqual(server.requestCount, 0, "nothing may reach the base's server")
    }

    func testInterceptorsAdaptEveryAttempt() throws {
        let server = try makeServer().withStandardRoutes()
        struct Stamp: RequestInterceptor {
            func adapt(_ request: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
                var stamped = request
                stamped.setValue("attempt-\(context.attempt)", forHTTPHeaderField: "X-Attempt")
                let adapted = stamped
                // Slow on purpose, off the caller's thread.
                DispatchQueue.global().async { completion(.success(adapted)) }
            }
        }
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
        network.interceptors = [Stamp()]
        _ = result(of: Request<Data>.get(server.url("/status?code=503")), on: network)
        XCTAssertEqual(server.receivedRequests.map { $0.header("X-Attempt") ?? "-" }, ["attempt-1", "attempt-2"])
    }

    func testAFailingInterceptorFailsTheRequest() throws {
        struct Broken: RequestInterceptor {
            struct Missing: Error {}
            func adapt(_ request: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
                completion(.failure(Missing()))
            }
        }
        let network = makeNetwork()
        network.interceptors = [Broken()]
        guard case let .interceptorFailed(error)? = networkError(result(of: Request<Data>.get("http://127.0.0.1:1/"), on: network)) else {
            return XCTFail("expected interceptorFailed")
        }
        XCTAssertTrue(error is Broken.Missing)
    }

    func testLoggingObserverRedactsCredentials() throws {
        let server = try makeServer()
        server.route("/login") { _, writer in writer.respond(status: 200, headers: ["Set-Cookie": "session=s3cret"], text: "ok") }
        let lines = Box<[String]>([])
        let network = makeNetwork()
        network.observers = [LoggingObserver(redacting: ["X-Api-Key"]) { line in lines.mutate { $0?.append(line) } }]
        _ = try result(of: Request<Data>(url: server.url("/login"), headers: ["Cookie": "a=b", "X-Api-Key": "k3y", "Proxy-Authorization": "p4ss"],
                                         authentication: .bearer("t0ken")), on: network)?.get()
        let log = (lines.value ?? []).joined(separator: "\n")
        XCTAssertTrue(log.contains("→ GET"), log)
        XCTAssertTrue(log.contains("← 200"), log)
        for secret in ["t0ken", "a=b", "k3y", "p4ss", "s3cret"] {
            XCTAssertFalse(log.contains(secret), "\(secret) leaked: \(log)")
        }
        XCTAssertTrue(log.contains("<redacted>"))
    }

    func testTypedErrorBodiesKeepTheResponse() throws {
        struct Problem: Decodable, Sendable, Equatable { let code: String }
        struct GetThing: DecodableRequest, ErrorDecodingRequest {
            typealias Output = Post
            typealias ErrorModel = Problem
            let url: URL
            func makeURL() throws -> URL { url }
        }
        let server = try makeServer()
        server.route("/thing") { _, writer in writer.respond(status: 422, headers: ["Content-Type": "application/json", "X-Request-Id": "r1"], text: #"{"code":"too_long"}"#) }
        server.route("/html-error") { _, writer in writer.respond(status: 500, text: "<html>oops</html>") }
        let network = makeNetwork()

        guard case let .failure(error)? = result(of: GetThing(url: server.url("/thing")), on: network),
              let typed = error as? ServerError<Problem> else { return XCTFail("expected ServerError<Problem>") }
        XCTAssertEqual(typed.model, Problem(code: "too_long"))
        XCTAssertEqual(typed.statusCode, 422)
        XCTAssertEqual(typed.response.headers["x-request-id"], "r1")
        XCTAssertEqual(typed.response.text, #"{"code":"too_long"}"#)

        // A body that is not the model stays an httpStatus error, bytes intact.
        guard case .httpStatus? = networkError(result(of: GetThing(url: server.url("/html-error")), on: network)) else {
            return XCTFail("expected httpStatus")
        }
        // The ad-hoc request does the same.
        guard case let .failure(adHoc)? = result(of: Request<Data>.get(server.url("/thing")).decodingErrors(as: Problem.self).string(), on: network) else {
            return XCTFail("expected failure")
        }
        XCTAssertEqual((adHoc as? ServerError<Problem>)?.model, Problem(code: "too_long"))
    }
}
