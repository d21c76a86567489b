import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Runs each example of HPNetwork 2.x's README (ReadmeExamples.swift) against the loopback server,
/// on `Network.shared` as the README does, and checks it does what the README says.
final class ReadmeExamplesTests: XCTestCase {
    // MARK: Posting Request

    func testTheSingletonDeliversTheOutputOnTheMainQueue() {
        let done = expectation(description: "result")
        let outputs = Recorder<(String, Bool)>()
        PostingRequest.singleton(Example1.BasicDataRequest(), handleResult: { output in
            outputs.record((String(decoding: output, as: UTF8.self), Thread.isMainThread))
            done.fulfill()
        }, handleError: { error in
            XCTFail("unexpected error \(error)")
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outputs.last?.0, "hello")
        XCTAssertEqual(outputs.last?.1, true, "HPNetwork delivered on the main queue; so does Network.shared")
    }

    func testTheSingletonDeliversABadStatusAsAnError() {
        let done = expectation(description: "error")
        let errors = Recorder<Error>()
        PostingRequest.singleton(InterceptingRequest(path: "/missing-plain"), handleResult: { _ in
            XCTFail("a 404 is not a success")
            done.fulfill()
        }, handleError: { error in
            errors.record(error)
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        // Not JSON, so the request's convertError hands the error back as it came: a NetworkError
        // carrying the response (HPNetwork passed a URLError).
        guard case let .httpStatus(response)? = errors.last as? NetworkError else {
            return XCTFail("expected NetworkError.httpStatus, got \(String(describing: errors.last))")
        }
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(response.text, "not found")
    }

    func testTheConvenienceMethodRunsTheRequest() {
        let done = expectation(description: "result")
        let results = Recorder<Result<Data, Error>>()
        PostingRequest.convenienceMethod(Example2.makeBasicRequest()) { result in
            results.record(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try results.last.map { String(decoding: try $0.get(), as: UTF8.self) }, "hello")
    }

    func testACustomQueueRunsTheRequestsOwnCode() {
        let (customQueue, network) = PostingRequest.customQueue()
        let probe = QueueProbe(customQueue)
        let done = expectation(description: "both")
        done.expectedFulfillmentCount = 2
        let profiles = Recorder<String>()
        let failures = Recorder<Error>()
        network.schedule(ProbedProfileRequest(path: "/profile", probe: probe)) { result in
            if case let .success(profile) = result { profiles.record(profile.name) }
            XCTAssertTrue(Thread.isMainThread, "completions still go to the main queue")
            done.fulfill()
        }
        network.schedule(ProbedProfileRequest(path: "/missing", probe: probe)) { result in
            if case let .failure(error) = result { failures.record(error) }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(profiles.all, ["Ada"])
        XCTAssertTrue(failures.last is APIFailure, "got \(String(describing: failures.last))")
        // The decoder (read by the decoding) and convertError ran on the custom queue.
        XCTAssertEqual(probe.checks, [true, true])
    }

    func testTheConcurrencyLimitHolds() {
        let previous = Network.shared.maximumConcurrentRequests
        defer { Network.shared.maximumConcurrentRequests = previous }
        PostingRequest.limitConcurrency()
        XCTAssertEqual(Network.shared.maximumConcurrentRequests, 5)

        let path = "/held-\(marker)"
        let gate = heldRoute(path)
        let server = Loopback.server
        let inFlight: @Sendable () -> Int = { server.receivedRequests.filter { $0.path == path }.count }
        let done = expectation(description: "all six")
        done.expectedFulfillmentCount = 6
        for _ in 0..<6 {
            Network.shared.schedule(PathRequest(path: path)) { _ in done.fulfill() }
        }
        XCTAssertTrue(waitUntil { inFlight() == 5 }, "five requests should reach the server")
        XCTAssertEqual(inFlight(), 5, "the sixth waits for a free slot")
        gate.open()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(inFlight(), 6)
    }

    // MARK: Progress Callback

    func testTheProgressHandlerGetsFoundationProgress() {
        let done = expectation(description: "result")
        let events = Recorder<(completed: Int64, total: Int64, fraction: Double, onMain: Bool)>()
        let results = Recorder<Int>()
        ProgressCallback.schedule(request: PathRequest(path: "/bytes?n=300000"), progressSeen: { progress in
            events.record((progress.completedUnitCount, progress.totalUnitCount, progress.fractionCompleted, Thread.isMainThread))
        }, handle: { result in
            results.record((try? result.get())?.count ?? -1)
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(results.all, [300_000])
        XCTAssertFalse(events.all.isEmpty)
        XCTAssertEqual(events.last?.completed, 300_000)
        XCTAssertEqual(events.last?.total, 300_000)
        XCTAssertEqual(events.last?.fraction, 1)
        XCTAssertTrue(events.all.allSatisfy(\.onMain), "progress runs where the completion does")
        XCTAssertEqual(events.all.map(\.completed), events.all.map(\.completed).sorted(), "never backwards")
    }

    // MARK: Synchronous Requests

    func testTheSynchronousCallsWorkOnTheMainThread() throws {
        XCTAssertTrue(Thread.isMainThread)
        // HPNetwork's blocked here until its timeout: its completion queue was the blocked one.
        let onNetwork = try SynchronousRequests.onNetwork(Example1.BasicDataRequest()).get()
        let onRequest = try SynchronousRequests.onRequest(Example2.makeBasicRequest()).get()
        XCTAssertEqual(String(decoding: onNetwork, as: UTF8.self), "hello")
        XCTAssertEqual(String(decoding: onRequest, as: UTF8.self), "hello")
    }

    // MARK: Cancelling Requests

    func testCancellingEndsTheRequestWithCancelled() {
        let path = "/held-\(marker)"
        _ = heldRoute(path)
        let done = expectation(description: "result")
        let results = Recorder<Result<Data, Error>>()
        let task = CancellingRequests.scheduleThenCancel(PathRequest(path: path)) { result in
            results.record(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(task.state, .cancelled)
        guard case let .failure(error)? = results.last, case .cancelled? = error as? NetworkError else {
            return XCTFail("expected NetworkError.cancelled, got \(String(describing: results.last))")
        }
    }

    // MARK: Creating Requests

    func testExample3DecodesAModelThatIsNotSendable() throws {
        let request = Example3.BasicDecodableRequest<Profile>(requestMethod: .get)
        let done = expectation(description: "result")
        let names = Recorder<String>()
        Network.shared.schedule(request) { result in
            if case let .success(profile) = result { names.record(profile.name + " " + profile.languages.joined(separator: ",")) }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(names.all, ["Ada Swift,C"])

        let profile = try Network.shared.scheduleSynchronously(request: request).get()
        profile.name += " Lovelace"   // the caller's own object: nothing else holds it
        XCTAssertEqual(profile.name, "Ada Lovelace")
    }

    @MainActor
    func testANonSendableOutputCanBeAwaitedOnTheMainActor() async throws {
        // `sending`: the profile arrives as the main actor's own value.
        let profile = try await Example3.BasicDecodableRequest<Profile>(requestMethod: .get).response()
        profile.languages.append("Lisp")
        XCTAssertEqual(profile.languages, ["Swift", "C", "Lisp"])
    }

    func testExample3DecodesASendableModelToo() throws {
        struct Named: Decodable { let name: String }
        let named = try Example3.BasicDecodableRequest<Named>(requestMethod: .get).scheduleSynchronously().get()
        XCTAssertEqual(named.name, "Ada")
    }

    // MARK: Intercepting Errors

    func testConvertErrorMakesTheAppsErrorFromTheBody() {
        let done = expectation(description: "result")
        let errors = Recorder<Error>()
        InterceptingRequest(path: "/missing").schedule { result in
            if case let .failure(error) = result { errors.record(error) }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        guard let failure = errors.last as? APIFailure else {
            return XCTFail("convertError was not used: got \(String(describing: errors.last))")
        }
        XCTAssertEqual(failure.message, "no such post")
        XCTAssertEqual(failure.statusCode, 404, "convertError gets the response as an HTTPURLResponse")
        guard case .httpStatus? = failure.underlying as? NetworkError else {
            return XCTFail("the error handed to convertError is Courier's: \(failure.underlying)")
        }
    }

    func testConvertErrorAppliesToTheSynchronousCallToo() {
        let result = InterceptingRequest(path: "/missing").scheduleSynchronously()
        guard case let .failure(error) = result, let failure = error as? APIFailure else {
            return XCTFail("convertError was not used: got \(result)")
        }
        XCTAssertEqual(failure.message, "no such post")
    }

    // MARK: URLBuilder

    func testTheURLBuilderChain() throws {
        XCTAssertEqual(try URLBuilderExample.weatherURL().absoluteString,
                       "https://api.openweathermap.org/data/2.5/onecall?lat=48.12312&lon=-12.91230&appid=apiKey&units=metric")
        XCTAssertEqual(try URLBuilder(scheme: "http", host: "localhost").addingPathComponent("a").buildThrowing().absoluteString,
                       "http://localhost/a")
    }

    // MARK: Request Authentication

    func testEachAuthenticationIsSent() {
        let cases: [(NetworkRequestAuthentication, String)] = [
            (.basic(username: "user", password: "pass"), "Basic dXNlcjpwYXNz"),
            (.bearer(token: "abc"), "Bearer abc"),
            (.raw(string: "Token xyz"), "Token xyz"),
        ]
        for (authentication, expected) in cases {
            let marker = self.marker
            let result = AuthenticatedRequest(authentication: authentication, marker: marker).scheduleSynchronously()
            XCTAssertNoThrow(try result.get())
            XCTAssertEqual(Loopback.requests(marked: marker).map { $0.header("Authorization") }, [expected])
        }
    }

    // MARK: Everything else

    func testMethodHeaderFieldsBodyAndCredentialsAreSent() throws {
        let marker = self.marker
        let post = Post(id: 7, title: "Seventh")
        let created = try CreatePostRequest(post: post, marker: marker).scheduleSynchronously().get()
        XCTAssertEqual(created, post)
        let seen = try XCTUnwrap(Loopback.requests(marked: marker).first)
        XCTAssertEqual(seen.method, "POST")
        XCTAssertEqual(seen.header("Content-Type"), "application/json")
        XCTAssertEqual(seen.header("Accept"), "application/json")
        XCTAssertEqual(seen.header("X-Client"), "hpnetwork-examples")
        XCTAssertEqual(seen.header("Authorization"), "Bearer secret-token")
        XCTAssertEqual(try JSONDecoder().decode(Post.self, from: seen.body), post)
    }

    func testOptionalStoredHeaderFieldsAndAnUntypedBodyAreSent() throws {
        let marker = self.marker
        let body = Data("raw bytes".utf8)
        let request = UploadRequest(requestMethod: .put, httpBody: body, headerFields: [
            NetworkRequestHeaderField(name: "x-trace", value: "first"),
            NetworkRequestHeaderField(name: "X-Trace", value: "second"),   // replaces it, as setValue did
        ], marker: marker)
        let echoed = try request.scheduleSynchronously().get()
        XCTAssertEqual(echoed, body)
        let seen = try XCTUnwrap(Loopback.requests(marked: marker).first)
        XCTAssertEqual(seen.method, "PUT")
        XCTAssertEqual(seen.body, body)
        XCTAssertEqual(seen.headerValues("X-Trace"), ["second"])
        XCTAssertEqual(seen.header("Content-Type"), "application/octet-stream", "HPNetwork named no type; Courier says it is unknown")
    }

    func testEveryRequestMethodIsSent() throws {
        for method in [NetworkRequestMethod.get, .post, .put, .delete, .patch, .head, .options] {
            let marker = self.marker
            _ = try UploadRequest(requestMethod: method, httpBody: nil, headerFields: nil, marker: marker).scheduleSynchronously().get()
            XCTAssertEqual(Loopback.requests(marked: marker).map(\.method), [method.rawValue])
        }
    }
}

/// A request an HPNetwork user would write to see where its code runs: the decoder and the
/// error conversion record whether they run on the probe's queue.
struct ProbedProfileRequest: DecodableRequest {
    typealias Output = Profile
    let path: String
    let probe: QueueProbe

    var decoder: JSONDecoder {
        probe.check()
        return JSONDecoder()
    }

    func makeURL() throws -> URL { Loopback.url(path) }

    func convertError(_ error: Error, data: Data?, response: URLResponse?) -> Error {
        probe.check()
        return InterceptingRequest(path: path).convertError(error, data: data, response: response)
    }
}
