import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `Network(stub:)`: Courier's whole pipeline, minus the network.
final class StubTransportTests: XCTestCase {
    private func stubNetwork(limit: Int = 6, _ respond: @escaping @Sendable (URLRequest) -> StubResponse) -> Network {
        let network = Network(stub: respond, callbackQueue: DispatchQueue(label: "test.stub"), maximumConcurrentRequests: limit)
        addTeardownBlock { network.cancelAll() }
        return network
    }

    func testAStubNetworkSaysItIsOne() {
        XCTAssertEqual(stubNetwork { _ in StubResponse() }.engine, .stub)
        XCTAssertEqual(Network(stub: StubServer(), callbackQueue: DispatchQueue(label: "test.stub")).engine, .stub)
        // Asked of the general initializer, which has nothing to answer with, it means automatic.
        XCTAssertEqual(Network.Engine.stub.resolved, Network.Engine.automatic.resolved)
        XCTAssertEqual(Network(engine: .stub).engine, Network.Engine.automatic.resolved)
    }

    func testAnswersGoThroughValidationAndDecoding() throws {
        let network = stubNetwork { request in
            switch request.url?.path {
            case "/post": return StubResponse(headers: ["Content-Type": "application/json"], body: Data(#"{"id":3,"title":"Stub"}"#.utf8))
            case "/echo": return StubResponse(body: request.httpBody ?? Data())
            default: return StubResponse(statusCode: 404, body: Data("nope".utf8))
            }
        }
        XCTAssertEqual(try result(of: GetPost(url: URL(string: "http://stub.test/post")!), on: network)?.get(), Post(id: 3, title: "Stub"))
        XCTAssertEqual(try result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/echo")!, body: .text("hi")).string(), on: network)?.get(), "hi")
        guard case let .httpStatus(response)? = networkError(result(of: Request<Data>.get("http://stub.test/missing"), on: network)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.text, "nope")
        XCTAssertEqual(response.headers["Content-Length"], "4")
    }

    func testABodyInOnePieceOrASliceIsTheOutputAsSent() throws {
        let bytes = Data((0..<200).map { UInt8($0) })
        let server = StubServer()
        // The whole body in one piece: kept as it came, not copied.
        server.on(.get, "/whole", reply: .response(StubResponse(body: bytes)))
        // One chunk that is a slice of a larger buffer (its indices do not start at 0).
        server.on(.get, "/slice", reply: .chunks([bytes[5..<15]], interval: 0))
        // Two chunks, neither the whole body: copied as they arrive.
        server.on(.get, "/short", reply: .chunks([bytes[0..<10], bytes[10..<20]], interval: 0))
        let network = Network(stub: server, callbackQueue: DispatchQueue(label: "test.stub"))
        let whole = try result(of: Request<Data>.get("http://stub.test/whole"), on: network)?.get()
        XCTAssertEqual(whole, bytes)
        let slice = try XCTUnwrap(result(of: Request<Data>.get("http://stub.test/slice"), on: network)?.get())
        XCTAssertEqual(slice, Data(bytes[5..<15]))
        XCTAssertEqual(slice.startIndex, 0, "the output kept the slice's indices")
        XCTAssertEqual(slice.first, 5)
        let short = try XCTUnwrap(result(of: Request<Data>.get("http://stub.test/short"), on: network)?.get())
        XCTAssertEqual(short, Data(bytes[0..<20]))
        XCTAssertEqual(short.startIndex, 0)
    }

    func testTheStubsHeadersAreSortedAndFramedOnce() throws {
        let network = stubNetwork { request in
            switch request.url?.path {
            case "/framed": return StubResponse(headers: ["x-b": "2", "Content-Length": "2", "X-a": "1"], body: Data("ok".utf8))
            default: return StubResponse(headers: ["x-b": "2", "X-a": "1"], body: Data("ok".utf8))
            }
        }
        for path in ["/framed", "/unframed"] {
            let response = try XCTUnwrap(result(of: Request<Data>.get("http://stub.test" + path).withResponse(), on: network)?.get())
            XCTAssertEqual(response.headers.fields.map(\.name), ["Content-Length", "X-a", "x-b"], path)
            XCTAssertEqual(response.headers["content-length"], "2", path)
        }
    }

    func testEveryConventionWorksOverTheStub() async throws {
        let network = stubNetwork { _ in StubResponse(body: Data("ok".utf8)) }
        let request = Request<Data>.get("http://stub.test/").string()
        let viaAsync = try await network.response(for: request)
        let viaBlocking = try network.scheduleSynchronously(request, timeout: 10).get()
        XCTAssertEqual([viaAsync, viaBlocking], ["ok", "ok"])
    }

    func testExactlyOnceAndTheLimitHoldWithoutANetwork() throws {
        let network = stubNetwork(limit: 3) { _ in
            // Answers run one at a time on the delegate queue; the limit is checked in ConcurrencyLimitTests.
            StubResponse(body: Data("x".utf8))
        }
        let counter = CompletionCounter()
        let wrongOutcomes = Box<[Int]>([])
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 2000
        for id in 0..<2000 {
            let cancelled = id % 3 == 0
            let task = network.schedule(Request<Data>.get("http://stub.test/\(id)")) { result in
                let succeeded = (try? result.get()) != nil
                // A cancel may lose the race against a stub this fast, but nothing else may fail.
                if !succeeded, !cancelled { wrongOutcomes.mutate { $0?.append(id) } }
                counter.record(id, outcome: succeeded ? "success" : "failure")
                done.fulfill()
            }
            if cancelled { task.cancel() }
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(counter.total, 2000)
        XCTAssertEqual(counter.duplicated, [])
        XCTAssertEqual(wrongOutcomes.value, [])
        XCTAssertGreaterThan(counter.byOutcome["failure", default: 0], 0)
    }

    // MARK: - StubServer

    /// A network answered by `server`, callbacks on a private queue, no retries unless asked for.
    private func stubbed(_ server: StubServer, limit: Int = 6, retryPolicy: RetryPolicy = .none) -> Network {
        let network = Network(stub: server, callbackQueue: DispatchQueue(label: "test.stub-server"), maximumConcurrentRequests: limit)
        network.retryPolicy = retryPolicy
        addTeardownBlock { network.cancelAll() }
        return network
    }

    /// Counts the responses each request (by id) received, as observers see them.
    private final class ResponseLog: NetworkObserver, @unchecked Sendable {  // `lock` guards `ids`.
        private let lock = NSLock()
        private var ids: [UInt64] = []
        func didReceive(_ response: HTTPResponse, context: RequestContext) { lock.withLock { ids.append(context.id) } }
        var responded: [UInt64] { lock.withLock { ids } }
    }

    func testRulesMatchMethodPathAndHeadersInOrder() throws {
        let server = StubServer()
        server.on(.get, "/users/1", headers: ["Authorization": "Bearer good"], reply: .json(#"{"id":1,"title":"Ada"}"#))
        server.on(.get, "/users/1", reply: .status(401))
        let anyUser = server.on(.get, "/users/*", reply: .json(#"{"id":0,"title":"someone"}"#))
        server.on(nil, "/echo") { request in .status(200, body: request.httpBody ?? Data()) }
        let network = stubbed(server)
        let base = "http://stub.test/users/1"

        var authorized = Request<Data>.get(base).decoding(Post.self)
        authorized.authentication = .bearer("good")
        XCTAssertEqual(try result(of: authorized, on: network)?.get(), Post(id: 1, title: "Ada"))
        guard case let .httpStatus(response)? = networkError(result(of: Request<Data>.get(base), on: network)) else {
            return XCTFail("expected the 401 of the second rule")
        }
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(try result(of: Request<Data>.get("http://stub.test/users/2?x=1").decoding(Post.self), on: network)?.get().title, "someone")
        XCTAssertEqual(anyUser.count, 1)
        XCTAssertEqual(try result(of: Request<Data>(method: .put, url: URL(string: "http://stub.test/echo")!, body: .text("hi")).string(), on: network)?.get(), "hi")

        guard case let .httpStatus(missing)? = networkError(result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/users/1")!), on: network)) else {
            return XCTFail("expected a 404 for a request no rule matches")
        }
        XCTAssertEqual(missing.statusCode, 404)
        XCTAssertTrue(missing.text.contains("POST http://stub.test/users/1"), missing.text)
        XCTAssertEqual(server.unmatchedRequests.map(\.httpMethod), ["POST"])
        XCTAssertEqual(server.recordedRequests.count, 5)
    }

    func testA401ThenA200RefreshesTheTokenOnce() throws {
        let server = StubServer()
        let me = server.on(.get, "/me", reply: .status(401, headers: ["WWW-Authenticate": "Bearer"]), .json(#"{"id":7,"title":"me"}"#))
        let refreshes = Box<Int>(0)
        let network = stubbed(server)
        network.interceptors = [BearerTokenRefresher(token: "expired") { done in
            refreshes.mutate { $0! += 1 }
            done(.success("fresh"))
        }]
        XCTAssertEqual(try result(of: Request<Data>.get("http://stub.test/me").decoding(Post.self), on: network)?.get(), Post(id: 7, title: "me"))
        XCTAssertEqual(refreshes.value, 1)
        XCTAssertEqual(me.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer expired", "Bearer fresh"])
        // The last reply repeats: later requests get the 200 at once.
        XCTAssertNoThrow(try result(of: Request<Data>.get("http://stub.test/me"), on: network)?.get())
        XCTAssertEqual(me.count, 3)
    }

    func testTransportFailuresAreClassifiedAndRetriedLikeRealOnes() throws {
        let server = StubServer()
        server.on(.post, "/offline", reply: .failure(URLError(.notConnectedToInternet)))   // a POST: not retried
        let flaky = server.on(.get, "/flaky", reply: .failure(URLError(.networkConnectionLost)), .failure(URLError(.timedOut)), .text("third time"))
        let network = stubbed(server, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01))
        guard case let .transport(error)? = networkError(result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/offline")!), on: network)) else {
            return XCTFail("expected transport")
        }
        XCTAssertEqual(error.code, .notConnectedToInternet)
        XCTAssertEqual(try result(of: Request<Data>.get("http://stub.test/flaky").string(), on: network)?.get(), "third time")
        XCTAssertEqual(flaky.count, 3)

        let timeout = StubServer()
        timeout.on(nil, "*", reply: .failure(URLError(.timedOut)))
        // A transport's own timeout is a transport error, not the request's deadline (timedOut).
        guard case let .transport(error)? = networkError(result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/x")!),
                                                                on: stubbed(timeout))) else {
            return XCTFail("a transport timeout is a transport error")
        }
        XCTAssertEqual(error.code, .timedOut)
    }

    func testARequestNeverAnsweredEndsAtItsDeadlineAndFreesItsSlot() throws {
        let server = StubServer()
        server.on(.get, "/hang", reply: .noAnswer)
        server.on(.get, "/next", reply: .text("next"))
        let network = stubbed(server, limit: 1)
        guard case .timedOut? = networkError(result(of: Request<Data>(url: URL(string: "http://stub.test/hang")!, timeout: 0.2), on: network)) else {
            return XCTFail("expected timedOut")
        }
        // The only slot is free again: not after the transport's fallback, but when the stub
        // confirms the cancel.
        XCTAssertEqual(try result(of: Request<Data>.get("http://stub.test/next").string(), on: network, timeout: 5)?.get(), "next")
    }

    func testLatencyHoldsNoQueueAndACancelDuringItEndsEverything() throws {
        let server = StubServer()
        let slowRoute = server.on(.get, "/slow", reply: .text("slow").delay(30))
        server.on(.get, "/quick", reply: .text("quick"))
        server.on(.get, "/later", reply: .text("later").delay(0.3))
        let log = ResponseLog()
        let network = stubbed(server, limit: 2)
        network.observers = [log]

        let slowDone = expectation(description: "slow cancelled")
        let slowResult = Box<Result<Data, any Error>>()
        let slow = network.schedule(Request<Data>.get("http://stub.test/slow")) { result in
            slowResult.value = result
            slowDone.fulfill()
        }
        XCTAssertTrue(waitUntil { slowRoute.count == 1 }, "the slow request is waiting out its latency")
        // Answered on the same delegate queue while the slow one waits: the wait blocks nothing.
        XCTAssertEqual(try result(of: Request<Data>.get("http://stub.test/quick").string(), on: network)?.get(), "quick")
        XCTAssertNil(slowResult.value)

        slow.cancel()
        wait(for: [slowDone], timeout: 5)
        guard case .cancelled? = networkError(slowResult.value) else { return XCTFail("expected cancelled") }
        // Both slots are free at once (not after the transport's 10-second fallback): two
        // requests run side by side. And the cancelled request hears nothing more: by the time
        // their replies (with latency) have come, it got no response.
        let both = expectation(description: "two later requests")
        both.expectedFulfillmentCount = 2
        for _ in 0..<2 {
            network.schedule(Request<Data>.get("http://stub.test/later").string()) { result in
                if (try? result.get()) == "later" { both.fulfill() }
            }
        }
        wait(for: [both], timeout: 5)
        XCTAssertEqual(log.responded.count, 3, "quick and the two later requests; never the cancelled one")
    }

    func testChunksArriveOverTimeWithProgressAndACancelStopsThem() throws {
        let chunks = (0..<5).map { randomBytes(2000, seed: UInt64($0)) }
        let server = StubServer()
        server.on(.get, "/chunks", reply: .chunks(chunks, interval: 0.06))
        server.on(.get, "/endless", reply: .chunks(chunks, interval: 30))
        let network = stubbed(server)

        let done = expectation(description: "chunked")
        let events = Box<[TransferProgress]>([])
        let outcome = Box<Result<Data, any Error>>()
        network.schedule(Request<Data>.get("http://stub.test/chunks")) { progress in
            events.mutate { $0?.append(progress) }
        } completion: { result in
            outcome.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try XCTUnwrap(outcome.value).get(), chunks.reduce(Data(), +))
        let seen = events.value ?? []
        XCTAssertGreaterThan(seen.count, 1, "progress followed the chunks: \(seen)")
        XCTAssertEqual(seen.map(\.completedBytes), seen.map(\.completedBytes).sorted())
        XCTAssertEqual(seen.last?.completedBytes, 10_000)
        XCTAssertEqual(seen.last?.totalBytes, 10_000)

        // Cancelled between chunks (the next is 30 s away): it ends at once, and no further
        // chunk reaches anyone.
        let firstChunk = expectation(description: "first chunk")
        let cancelled = expectation(description: "cancelled")
        let after = Box<[TransferProgress]>([])
        let task = network.schedule(Request<Data>.get("http://stub.test/endless")) { progress in
            after.mutate { $0?.append(progress) }
            firstChunk.fulfill()
        } completion: { result in
            if case .failure(NetworkError.cancelled) = result { cancelled.fulfill() }
        }
        wait(for: [firstChunk], timeout: 10)
        task.cancel()
        wait(for: [cancelled], timeout: 10)
        XCTAssertEqual(after.value?.map(\.completedBytes), [2000])
    }

    func testADownloadAndItsDeadlineGoThroughTheStub() throws {
        let chunks = (0..<4).map { randomBytes(100_000, seed: UInt64(10 + $0)) }
        let server = StubServer()
        server.on(.get, "/file.bin", reply: .chunks(chunks, interval: 0.01))
        server.on(.get, "/stalls.bin", reply: .chunks(chunks, interval: 30))
        let network = stubbed(server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("file.bin")
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get("http://stub.test/file.bin"), to: destination, timeout: 10).get())
        XCTAssertEqual(try Data(contentsOf: destination), chunks.reduce(Data(), +))

        let stalled = folder.appendingPathComponent("stalls.bin")
        guard case .timedOut? = networkError(network.downloadSynchronously(Request<Data>(url: URL(string: "http://stub.test/stalls.bin")!, timeout: 0.3),
                                                                            to: stalled, timeout: 10)) else {
            return XCTFail("expected timedOut")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: stalled.path), "a timed-out download is never moved into place")
    }

    func testRecordedRequestsHoldWhatWasSentBodiesIncluded() throws {
        let server = StubServer()
        server.on(.post, "/form", reply: .status(201))
        let network = stubbed(server)
        network.defaults.headers = ["X-App": "tests"]
        var form = MultipartForm(boundary: "fixed-boundary")
        form.addField(name: "title", value: "Holiday")
        let file = try makeTemporaryDirectory().appendingPathComponent("notes.txt")
        try Data("file body".utf8).write(to: file)
        form.addFile(name: "notes", fileURL: file)
        XCTAssertNoThrow(try result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/form")!, body: .multipart(form)), on: network)?.get())
        XCTAssertNoThrow(try result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/form")!, body: .json(["a": 1])), on: network)?.get())

        let recorded = server.recordedRequests
        XCTAssertEqual(recorded.count, 2)
        XCTAssertEqual(recorded[0].value(forHTTPHeaderField: "X-App"), "tests")
        XCTAssertEqual(recorded[0].value(forHTTPHeaderField: "Content-Type"), "multipart/form-data; boundary=fixed-boundary")
        XCTAssertEqual(recorded[0].httpBody, try form.encodedData(), "the multipart body, read back from its file")
        XCTAssertEqual(recorded[1].httpBody, Data(#"{"a":1}"#.utf8))
    }

    func testExactlyOnceHoldsWithLatencyAndCancels() throws {
        let server = StubServer()
        server.on(.get, "*") { request in
            let id = Int(request.url?.lastPathComponent ?? "") ?? 0
            return .chunks([Data("a".utf8), Data("b".utf8)], interval: Double(id % 4) * 0.002).delay(Double(id % 5) * 0.002)
        }
        let network = stubbed(server, limit: 4)
        let counter = CompletionCounter()
        let wrongOutcomes = Box<[Int]>([])
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 400
        for id in 0..<400 {
            let cancelled = id % 3 == 0
            let task = network.schedule(Request<Data>.get("http://stub.test/\(id)")) { result in
                let succeeded = (try? result.get()) == Data("ab".utf8)
                // A cancel may lose the race against a reply without latency, but nothing else may fail.
                if !succeeded, !cancelled { wrongOutcomes.mutate { $0?.append(id) } }
                counter.record(id, outcome: succeeded ? "success" : "failure")
                done.fulfill()
            }
            if cancelled { task.cancel() }
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(counter.total, 400)
        XCTAssertEqual(counter.duplicated, [])
        XCTAssertEqual(wrongOutcomes.value, [])
        XCTAssertGreaterThan(counter.byOutcome["failure", default: 0], 0)
    }
}
