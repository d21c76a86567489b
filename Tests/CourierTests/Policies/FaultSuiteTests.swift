import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The fault suite: a scripted server misbehaves, and every case ends in the right typed error
/// or in success, never in a hang.
final class FaultSuiteTests: XCTestCase {
    private let quickRetries = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maximumDelay: 0.05)

    /// Counts the requests each path received.
    private func hits(_ server: TestServer, _ path: String) -> Int {
        server.receivedRequests.filter { $0.path == path }.count
    }

    func testServerClosingMidBodyIsIncompleteBodyAfterEveryAttempt() throws {
        let server = try makeServer()
        server.routeCuttingBody("/cut", announcing: 10000, sending: 100)
        let network = makeNetwork(retryPolicy: quickRetries)
        let done = expectation(description: "done")
        // URLSession on Linux reports libcurl's "partial file" as code -1; the curl engine as
        // `networkConnectionLost`, carrying CURLE_PARTIAL_FILE (18).
        let expected = network.engine == .curl ? URLError.networkConnectionLost.rawValue : -1
        let task = network.schedule(Request<Data>.get(server.url("/cut"))) { result in
            guard case let .failure(NetworkError.incompleteBody(error)) = result else { return XCTFail("\(result)") }
            XCTAssertEqual(error.code.rawValue, expected, "the last real error, not a generic one")
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(hits(server, "/cut"), 3)
        XCTAssertEqual(task.attemptCount, 3)
    }

    func testSlowHeadersPastTheDeadlineTimeOut() throws {
        let server = try makeServer()
        holdRequests(at: "/slow", on: server)
        let request = Request<Data>(url: server.url("/slow"), timeout: 0.3)
        guard case .timedOut? = networkError(result(of: request, on: makeNetwork(retryPolicy: quickRetries))) else {
            return XCTFail("expected timedOut")
        }
        XCTAssertEqual(hits(server, "/slow"), 1, "Courier's own deadline is final: no retry")
    }

    /// The same stalled server, two ways to give up on it: the request's own deadline
    /// (``NetworkError/timedOut``, final) and an attempt's idle timeout (`timedOut` of kind
    /// `.idle`, which the retry policy retries like a transport failure).
    func testTheDeadlineAndATransportIdleTimeoutAreToldApart() throws {
        let server = try makeServer()
        holdRequests(at: "/deadline", on: server)
        holdRequests(at: "/idle", on: server)

        let deadline = Request<Data>(url: server.url("/deadline"), timeout: 0.5)
        guard case .timedOut? = networkError(result(of: deadline, on: makeNetwork(retryPolicy: quickRetries))) else {
            return XCTFail("the deadline is timedOut")
        }
        XCTAssertEqual(hits(server, "/deadline"), 1, "the deadline is final")

        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maximumDelay: 0.05))
        network.interceptors = [OneSecondIdleLimit()]
        let idle = Request<Data>(url: server.url("/idle"), timeout: 30)
        guard case let .timedOut(limit)? = networkError(result(of: idle, on: network, timeout: 25)) else {
            return XCTFail("an idle timeout is timedOut")
        }
        XCTAssertEqual(limit.kind, .idle)
        XCTAssertEqual(limit.seconds, 1, "the interceptor's timeoutInterval is the idle timeout")
        XCTAssertEqual(hits(server, "/idle"), 2, "an idle timeout is transient: retried")
    }

    func testASlowDripWithinTheDeadlineSucceeds() throws {
        let server = try makeServer()
        server.route("/drip") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "10")])
            for byte in 0..<10 where !writer.peerHasGone {
                writer.write(Data([UInt8(0x30 + byte)]))
                usleep(20_000)  // pacing the server, not synchronising the test
            }
        }
        XCTAssertEqual(try result(of: Request<Data>(url: server.url("/drip"), timeout: 20).string(), on: makeNetwork())?.get(), "0123456789")
    }

    func test503TwiceThen200Succeeds() throws {
        let server = try makeServer()
        let count = Box<Int>(0)
        server.route("/flaky") { _, writer in
            count.mutate { $0! += 1 }
            if count.value! <= 2 { writer.respond(status: 503, text: "busy") } else { writer.respond(status: 200, text: "ok") }
        }
        let events = Box<[String]>([])
        struct Recorder: NetworkObserver {
            let events: Box<[String]>
            func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
                events.mutate { $0?.append("retry after attempt \(context.attempt): \(error.statusCode ?? 0)") }
            }
        }
        let network = makeNetwork(retryPolicy: quickRetries)
        network.observers = [Recorder(events: events)]
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/flaky")).string(), on: network)?.get(), "ok")
        XCTAssertEqual(events.value, ["retry after attempt 1: 503", "retry after attempt 2: 503"])
    }

    func test429WithRetryAfterWaitsThenSucceeds() throws {
        let server = try makeServer()
        let count = Box<Int>(0)
        server.route("/limited") { _, writer in
            count.mutate { $0! += 1 }
            if count.value == 1 { writer.respond(status: 429, headers: ["Retry-After": "1"], text: "slow down") } else { writer.respond(status: 200, text: "ok") }
        }
        let delays = Box<[TimeInterval]>([])
        struct Recorder: NetworkObserver {
            let delays: Box<[TimeInterval]>
            func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) { delays.mutate { $0?.append(delay) } }
        }
        let network = makeNetwork(retryPolicy: quickRetries)
        network.observers = [Recorder(delays: delays)]
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/limited")).string(), on: network)?.get(), "ok")
        XCTAssertEqual(delays.value, [1], "the server's Retry-After, not the backoff")
    }

    func testRetryAfterBeyondTheCapReportsTheResponse() throws {
        let server = try makeServer()
        server.route("/later") { _, writer in writer.respond(status: 503, headers: ["Retry-After": "86400"], text: "maintenance") }
        guard case let .httpStatus(response)? = networkError(result(of: Request<Data>.get(server.url("/later")), on: makeNetwork(retryPolicy: quickRetries))) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.text, "maintenance")
        XCTAssertEqual(hits(server, "/later"), 1)
    }

    func testNonIdempotentRequestsAreNotRetriedUnlessAllowed() throws {
        let server = try makeServer()
        server.route("/create") { _, writer in writer.respond(status: 503, text: "busy") }
        _ = result(of: Request<Data>(method: .post, url: server.url("/create"), body: .text("x")), on: makeNetwork(retryPolicy: quickRetries))
        XCTAssertEqual(hits(server, "/create"), 1)
        var allowing = quickRetries
        allowing.retriesNonIdempotentRequests = true
        _ = result(of: Request<Data>(method: .post, url: server.url("/create"), body: .text("x")), on: makeNetwork(retryPolicy: allowing))
        XCTAssertEqual(hits(server, "/create"), 4)
    }

    func test401WithWWWAuthenticateIsReported() throws {
        let server = try makeServer()
        server.route("/private") { _, writer in
            writer.respond(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api""#], text: "expired")
        }
        guard case let .httpStatus(response)? = networkError(result(of: Request<Data>(url: server.url("/private"), authentication: .bearer("old")), on: makeNetwork(retryPolicy: quickRetries))) else {
            return XCTFail("expected httpStatus(401)")
        }
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(response.text, "expired")
    }

    func test401ThenRefreshThen200SharesOneRefresh() throws {
        let server = try makeServer()
        server.route("/me") { request, writer in
            if request.header("Authorization") == "Bearer fresh" {
                writer.respond(status: 200, text: "hello")
            } else {
                writer.respond(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api""#], text: "expired")
            }
        }
        let refreshes = Box<Int>(0)
        let refreshGate = Gate()
        let refresher = BearerTokenRefresher(token: "stale") { done in
            refreshes.mutate { $0! += 1 }
            // Hold the refresh until every request has had its 401, so they must share it.
            DispatchQueue.global().async {
                refreshGate.wait(timeout: 10)
                done(.success("fresh"))
            }
        }
        let network = makeNetwork(retryPolicy: .none)
        network.interceptors = [refresher]
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 5
        for _ in 0..<5 {
            network.schedule(Request<Data>.get(server.url("/me")).string()) { result in
                XCTAssertEqual(try? result.get(), "hello")
                done.fulfill()
            }
        }
        XCTAssertTrue(waitUntil { server.receivedRequests.filter { $0.header("Authorization") == "Bearer stale" }.count == 5 })
        refreshGate.open()
        wait(for: [done], timeout: 20)
        XCTAssertEqual(refreshes.value, 1)
        XCTAssertEqual(refresher.token, "fresh")
    }

    func testAFailedRefreshReportsThe401() throws {
        let server = try makeServer()
        server.route("/me") { _, writer in writer.respond(status: 401, headers: ["WWW-Authenticate": "Bearer"], text: "no") }
        struct Denied: Error {}
        let network = makeNetwork()
        network.interceptors = [BearerTokenRefresher(token: "t") { $0(.failure(Denied())) }]
        guard case let .httpStatus(response)? = networkError(result(of: Request<Data>.get(server.url("/me")), on: network)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(hits(server, "/me"), 1)
    }

    func testRedirectLoopIsAClearError() throws {
        let server = try makeServer()
        server.route("/loop") { request, writer in
            let n = Int(request.queryItems["n"] ?? "0") ?? 0
            writer.respond(status: 302, headers: ["Location": "/loop?n=\(n + 1)"])
        }
        let network = makeNetwork()
        network.maximumRedirects = 5
        guard case let .tooManyRedirects(response)? = networkError(result(of: Request<Data>.get(server.url("/loop")), on: network)) else {
            return XCTFail("expected tooManyRedirects")
        }
        XCTAssertEqual(response.statusCode, 302)
        XCTAssertEqual(hits(server, "/loop"), 6, "the first request and 5 redirects")
    }

    func test307KeepsMethodAndBody() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/moved") { _, writer in writer.respond(status: 307, headers: ["Location": "/echo"]) }
        let body = Data(#"{"id":9,"title":"Nine"}"#.utf8)
        let request = Request<Data>(method: .post, url: server.url("/moved"), body: .data(body, contentType: "application/json"))
        XCTAssertEqual(try result(of: request, on: makeNetwork())?.get(), body)
        let echoed = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(echoed.path, "/echo")
        XCTAssertEqual(echoed.method, "POST")
        XCTAssertEqual(echoed.body, body)
    }

    func test307And308ReplayFileAndMultipartBodies() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/moved") { _, writer in writer.respond(status: 307, headers: ["Location": "/echo"]) }
        server.route("/permanent") { _, writer in writer.respond(status: 308, headers: ["Location": "/echo"]) }
        let content = randomBytes(300_000, seed: 41)
        let file = try makeTemporaryDirectory().appendingPathComponent("upload.bin")
        try content.write(to: file)
        let network = makeNetwork()

        XCTAssertEqual(try result(of: Request<Data>(method: .put, url: server.url("/moved"), body: .file(file)), on: network)?.get(), content)
        XCTAssertEqual(server.receivedRequests.last?.path, "/echo")
        XCTAssertEqual(server.receivedRequests.last?.method, "PUT")
        XCTAssertEqual(server.receivedRequests.last?.body, content)

        var form = MultipartForm()
        form.addField(name: "note", value: "hello")
        form.addFile(name: "upload", fileURL: file, filename: "upload.bin", mimeType: "application/octet-stream")
        let echoed = try XCTUnwrap(result(of: Request<Data>(method: .post, url: server.url("/permanent"), body: .multipart(form)), on: network)?.get())
        let received = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(received.path, "/echo")
        XCTAssertEqual(received.method, "POST")
        XCTAssertEqual(received.body, echoed)
        XCTAssertNotNil(received.body.range(of: content), "the file part arrived whole after the redirect")
    }

    func test308KeepsMethodAndBodyAndGETsFollow() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/permanent") { _, writer in writer.respond(status: 308, headers: ["Location": "/echo"]) }
        let network = makeNetwork()
        let body = Data("payload".utf8)
        XCTAssertEqual(try result(of: Request<Data>(method: .put, url: server.url("/permanent"), body: .text("payload")), on: network)?.get(), body)
        XCTAssertEqual(server.receivedRequests.last?.method, "PUT")
        XCTAssertEqual(server.receivedRequests.last?.body, body)
        XCTAssertNoThrow(try result(of: Request<Data>.get(server.url("/permanent")), on: network)?.get())
        XCTAssertEqual(server.receivedRequests.last?.path, "/echo")
    }

    func testCrossOriginRedirectDropsCredentials() throws {
        let origin = try makeServer()
        let other = try makeServer().withStandardRoutes()
        origin.route("/away") { _, writer in writer.respond(status: 302, headers: ["Location": other.url("/echo").absoluteString]) }
        origin.route("/here") { _, writer in writer.respond(status: 302, headers: ["Location": "/echo"]) }
        origin.route("/echo") { request, writer in writer.respond(status: 200, text: request.header("Authorization") ?? "none") }
        let network = makeNetwork()
        let headers = ["Cookie": "session=secret"]
        _ = try result(of: Request<Data>(url: origin.url("/away"), headers: headers, authentication: .bearer("secret")), on: network)?.get()
        let arrived = try XCTUnwrap(other.receivedRequests.last)
        XCTAssertNil(arrived.header("Authorization"))
        XCTAssertNil(arrived.header("Cookie"))
        // Same origin: credentials stay.
        XCTAssertEqual(try result(of: Request<Data>(url: origin.url("/here"), authentication: .bearer("secret")).string(), on: network)?.get(), "Bearer secret")
    }

    func testWrongContentLengthIsIncompleteBody() throws {
        let server = try makeServer()
        server.routeCuttingBody("/short", announcing: 500, sending: 200)
        guard case .incompleteBody? = networkError(result(of: Request<Data>.get(server.url("/short")), on: makeNetwork())) else {
            return XCTFail("expected incompleteBody")
        }
    }

    func testInvalidJSONIsDecodingFailedAndNotRetried() throws {
        let server = try makeServer()
        server.route("/bad") { _, writer in writer.respond(json: "{not json") }
        guard case let .decodingFailed(_, response)? = networkError(result(of: GetPost(url: server.url("/bad")), on: makeNetwork(retryPolicy: quickRetries))) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertEqual(response.text, "{not json")
        XCTAssertEqual(hits(server, "/bad"), 1)
    }

    func testBodyOverTheCapFailsClearly() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/chunked-big") { _, writer in
            writer.writeHead(status: 200, headers: [("Transfer-Encoding", "chunked")])
            for _ in 0..<64 where !writer.peerHasGone {
                writer.write(Data("4000\r\n".utf8) + Data(repeating: 0x43, count: 0x4000) + Data("\r\n".utf8))
            }
            writer.write(Data("0\r\n\r\n".utf8))
        }
        let network = makeNetwork()
        network.maximumResponseSize = 100_000
        // Announced too large: refused at the headers.
        guard case .responseTooLarge(100_000)? = networkError(result(of: Request<Data>.get(server.url("/bytes?n=200000")), on: network)) else {
            return XCTFail("expected responseTooLarge")
        }
        // Not announced (chunked): refused once it grows past the cap.
        guard case .responseTooLarge(100_000)? = networkError(result(of: Request<Data>.get(server.url("/chunked-big")), on: network)) else {
            return XCTFail("expected responseTooLarge")
        }
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/bytes?n=90000")), on: network)?.get().count, 90_000)
    }

    func testConnectionRefusedIsRetriedThenReported() throws {
        let url = URL(string: "http://127.0.0.1:\(TestServer.unusedPort())/")!
        let network = makeNetwork(retryPolicy: quickRetries)
        let done = expectation(description: "done")
        let task = network.schedule(Request<Data>.get(url)) { result in
            guard case let .failure(NetworkError.transport(error)) = result else { return XCTFail("\(result)") }
            XCTAssertEqual(error.code, .cannotConnectToHost)
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(task.attemptCount, 3)
    }

    func testUnknownHostIsTransport() {
        // An over-long label fails inside the resolver: no DNS query leaves the machine.
        let url = URL(string: "http://\(String(repeating: "b", count: 70)).invalid/")!
        guard case let .transport(error)? = networkError(result(of: Request<Data>.get(url), on: makeNetwork(retryPolicy: quickRetries), timeout: 30)) else {
            return XCTFail("expected transport")
        }
        XCTAssertEqual(error.code, .cannotFindHost)
    }

    func testCancelDuringBackoffEndsAtOnce() throws {
        let server = try makeServer()
        let firstAnswered = expectation(description: "first attempt answered")
        // Retry-After fixes the wait at 60 s (a jittered backoff could draw a delay shorter
        // than the time the test takes to cancel).
        server.route("/busy") { _, writer in
            writer.respond(status: 503, headers: ["Retry-After": "60"], text: "busy")
            firstAnswered.fulfill()
        }
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 5))
        let retrying = expectation(description: "backing off")
        struct Recorder: NetworkObserver {
            let retrying: XCTestExpectation
            func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {
                XCTAssertEqual(delay, 60)
                retrying.fulfill()
            }
        }
        network.observers = [Recorder(retrying: retrying)]
        let done = expectation(description: "cancelled")
        let task = network.schedule(Request<Data>.get(server.url("/busy"))) { result in
            guard case .failure(NetworkError.cancelled) = result else { return XCTFail("\(result)") }
            done.fulfill()
        }
        wait(for: [firstAnswered, retrying], timeout: 10)
        XCTAssertEqual(task.state, .running)
        task.cancel()
        // Delivered well before the (up to) 60-second backoff could have ended.
        wait(for: [done], timeout: 10)
        XCTAssertEqual(hits(server, "/busy"), 1)
    }

    /// 1,000 requests against flaky routes with retries on, mixed with random cancels: each
    /// completes exactly once.
    func testExactlyOnceWithRetriesAndRandomCancels() throws {
        let server = try makeServer().withStandardRoutes()
        let counter503 = Box<Int>(0)
        server.route("/sometimes") { _, writer in
            counter503.mutate { $0! += 1 }
            if counter503.value! % 2 == 0 { writer.respond(status: 503, text: "busy") } else { writer.respond(status: 200, text: "ok") }
        }
        let network = makeNetwork(limit: 8, callbackQueue: DispatchQueue(label: "test.retries", attributes: .concurrent),
                                  retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.002, maximumDelay: 0.01))
        let counter = CompletionCounter()
        let all = expectation(description: "all")
        all.expectedFulfillmentCount = 1000
        let paths = ["/sometimes", "/status?code=503", "/hello", "/status?code=404"]
        for id in 0..<1000 {
            let task = network.schedule(Request<Data>.get(server.url(paths[id % paths.count]))) { result in
                counter.record(id, outcome: (try? result.get()) == nil ? "failure" : "success")
                all.fulfill()
            }
            switch id % 5 {
            case 0: task.cancel()
            case 1: DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...15))) { task.cancel() }
            default: break
            }
        }
        wait(for: [all], timeout: 120)
        network.cancelAll()
        XCTAssertNotNil(try result(of: Request<Data>.get(server.url("/hello")), on: network)?.get())
        XCTAssertEqual(counter.total, 1000)
        XCTAssertEqual(counter.duplicated, [])
        XCTAssertGreaterThan(counter.byOutcome["success", default: 0], 0)
    }
}
