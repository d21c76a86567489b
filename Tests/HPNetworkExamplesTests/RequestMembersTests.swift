import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest
#if canImport(Combine)
import Combine
#endif

/// HPNetwork 2.x members beyond the README's examples, and how they meet Courier's own.
final class RequestMembersTests: XCTestCase {
    /// A request that declares none of the members gets the plain defaults, from either name,
    /// without the forwarding defaults calling each other.
    func testARequestDeclaringNothingGetsThePlainDefaults() throws {
        let request = PathRequest(path: "/hello")
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.requestMethod, .get)
        XCTAssertEqual(request.headers, [:])
        XCTAssertNil(request.headerFields)
        XCTAssertNil(request.body)
        XCTAssertNil(request.httpBody)
        XCTAssertNil(request.authentication)
        guard case .timedOut? = request.convertError(NetworkError.timedOut, response: nil) as? NetworkError,
              case .cancelled? = request.convertError(NetworkError.cancelled, data: nil, response: nil) as? NetworkError else {
            return XCTFail("the default conversions hand the error back")
        }
        let urlRequest = try request.makeURLRequest()
        XCTAssertEqual(urlRequest.httpMethod, "GET")
        XCTAssertNil(urlRequest.httpBody)
    }

    /// Only a request that declares HPNetwork's conversion has it called (and pays for the
    /// `URLResponse` it takes).
    func testOnlyADeclaredConversionIsCalled() {
        XCTAssertFalse(PathRequest.ConvertErrorResponse.isDeclared)
        XCTAssertTrue(InterceptingRequest.ConvertErrorResponse.isDeclared)
        let response = HTTPResponse(statusCode: 404, headers: ["Content-Type": "application/json"],
                                    url: Loopback.url("/missing"), body: Data(#"{"message":"gone"}"#.utf8))
        let converted = InterceptingRequest(path: "/missing").convertError(.httpStatus(response), response: response)
        XCTAssertEqual((converted as? APIFailure)?.message, "gone")
        XCTAssertEqual((converted as? APIFailure)?.statusCode, 404)
    }

    /// Courier's member wins when a request declares both names.
    func testCourierMembersWinOverHPNetworkOnes() throws {
        let marker = self.marker
        let data = try BothNamesRequest(marker: marker).scheduleSynchronously().get()
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "courier body")
        let seen = try XCTUnwrap(Loopback.requests(marked: marker).first)
        XCTAssertEqual(seen.method, "PATCH")
        XCTAssertEqual(seen.header("X-Name"), "courier")
        XCTAssertEqual(seen.body, Data("courier body".utf8))
    }

    /// HPNetwork's `finishingQueue` is where the completion and progress of a callback request go.
    func testTheFinishingQueueReceivesTheCallbacks() {
        let queue = DispatchQueue(label: "finishing")
        let probe = QueueProbe(queue)
        let done = expectation(description: "result")
        let onQueue = Recorder<Bool>()
        FinishingOnQueue(queue: queue).schedule(progressHandler: { _ in onQueue.record(probe.isCurrent) }) { result in
            XCTAssertEqual((try? result.get())?.count, 4096)
            onQueue.record(probe.isCurrent)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertGreaterThan(onQueue.all.count, 1, "progress and completion")
        XCTAssertTrue(onQueue.all.allSatisfy { $0 })
    }

    /// A blocking call made on a `Network(queue:)`'s own serial queue, with an interceptor
    /// installed, completes: none of what it needs waits for that queue.
    func testABlockingCallOnTheCustomQueueItselfCompletes() {
        let queue = DispatchQueue(label: "custom serial")
        let network = Network(queue: queue)
        network.interceptors = [PassThrough()]
        addTeardownBlock { network.cancelAll() }
        let done = expectation(description: "the blocking call returned")
        let sizes = Recorder<Int>()
        queue.async {
            sizes.record((try? network.scheduleSynchronously(request: PathRequest(path: "/hello")).get())?.count ?? -1)
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(sizes.all, [5])
    }

    /// `withResponse()` keeps the request's finishing queue, as it keeps everything else.
    func testWithResponseKeepsTheFinishingQueue() {
        let queue = DispatchQueue(label: "finishing")
        let probe = QueueProbe(queue)
        let done = expectation(description: "result")
        let seen = Recorder<(Bool, Int?)>()
        FinishingOnQueue(queue: queue).withResponse().schedule { result in
            seen.record((probe.isCurrent, try? result.get().statusCode))
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(seen.last?.0, true)
        XCTAssertEqual(seen.last?.1, 200)
    }

    /// A queue named in the call still wins over the request's.
    func testACallbackQueueInTheCallWinsOverTheFinishingQueue() {
        let mine = DispatchQueue(label: "mine")
        let probe = QueueProbe(mine)
        let done = expectation(description: "result")
        let onMine = Recorder<Bool>()
        Network.shared.schedule(FinishingOnQueue(queue: DispatchQueue(label: "theirs")), callbackQueue: mine) { _ in
            onMine.record(probe.isCurrent)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(onMine.all, [true])
    }

    func testTheRequestsBlockingCallTakesAProgressHandler() throws {
        let events = Recorder<Int64>()
        let data = try PathRequest(path: "/bytes?n=70000").scheduleSynchronously(progressHandler: { progress in
            events.record(progress.completedUnitCount)
        }).get()
        XCTAssertEqual(data.count, 70_000)
        XCTAssertEqual(events.last, 70_000)
    }

    func testTheNetworksBlockingCallTakesAProgressHandler() throws {
        let events = Recorder<Double>()
        let data = try Network.shared.scheduleSynchronously(request: PathRequest(path: "/bytes?n=70000"), progressHandler: { progress in
            events.record(progress.fractionCompleted)
        }).get()
        XCTAssertEqual(data.count, 70_000)
        XCTAssertEqual(events.last, 1)
    }

    func testTheOtherPredefinedHeaderFieldsAreSent() throws {
        let marker = self.marker
        _ = try UploadRequest(requestMethod: .get, httpBody: nil,
                              headerFields: [.acceptCharsetUTF8, .musicUserToken("m-token")], marker: marker).scheduleSynchronously().get()
        let seen = try XCTUnwrap(Loopback.requests(marked: marker).first)
        XCTAssertEqual(seen.header("Accept-Charset"), "utf-8")
        XCTAssertEqual(seen.header("Music-User-Token"), "m-token")
    }

    func testAHeaderFieldWithALineBreakFailsBeforeSending() {
        let marker = self.marker
        let result = UploadRequest(requestMethod: .get, httpBody: nil,
                                   headerFields: [NetworkRequestHeaderField(name: "X-Bad", value: "a\r\nInjected: yes")],
                                   marker: marker).scheduleSynchronously()
        guard case let .failure(error) = result, case .invalidRequest? = error as? NetworkError else {
            return XCTFail("expected NetworkError.invalidRequest, got \(result)")
        }
        XCTAssertTrue(Loopback.requests(marked: marker).isEmpty, "nothing was sent")
    }

    func testTheMethodEnumKeepsItsShape() {
        XCTAssertEqual(NetworkRequestMethod.allCases.count, 9)
        XCTAssertEqual(NetworkRequestMethod.trace.httpMethod.rawValue, "TRACE")
        XCTAssertEqual(NetworkRequestMethod.patch.id, "PATCH")
        XCTAssertEqual(NetworkRequestMethod.allCases.map(\.httpMethod.rawValue), NetworkRequestMethod.allCases.map(\.rawValue))
    }

    #if canImport(Combine)
    func testThePublisherDeliversTheOutput() {
        let done = expectation(description: "value and completion")
        done.expectedFulfillmentCount = 2
        let posts = Recorder<Post>()
        let cancellable = Example3.BasicDecodableRequest<Post>(requestMethod: .get).dataTaskPublisher()
            .sink(receiveCompletion: { completion in
                if case let .failure(error) = completion { XCTFail("\(error)") }
                done.fulfill()
            }, receiveValue: { post in
                posts.record(post)
                done.fulfill()
            })
        wait(for: [done], timeout: 10)
        cancellable.cancel()
        XCTAssertEqual(posts.all.count, 1)
    }
    #endif
}

/// Declares both names of each member: Courier's are the ones used.
struct BothNamesRequest: NetworkRequest {
    typealias Output = Data
    let marker: String
    var requestMethod: NetworkRequestMethod { .delete }
    var method: HTTPMethod { .patch }
    var headerFields: [NetworkRequestHeaderField]? { [NetworkRequestHeaderField(name: "X-Name", value: "hpnetwork")] }
    var headers: [String: String] { ["X-Name": "courier"] }
    var httpBody: Data? { Data("hpnetwork body".utf8) }
    var body: RequestBody? { .text("courier body") }
    func makeURL() throws -> URL { Loopback.url("/echo?marker=\(marker)") }
}

/// Chooses where its callbacks run, as HPNetwork requests could.
struct FinishingOnQueue: NetworkRequest {
    typealias Output = Data
    let queue: DispatchQueue
    var finishingQueue: DispatchQueue { queue }
    func makeURL() throws -> URL { Loopback.url("/bytes?n=4096") }
}

/// An interceptor that changes nothing: its `adapt` still runs before every attempt.
struct PassThrough: RequestInterceptor {}
