import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A cached answer in every calling convention, with one end each whatever races with it, and
/// what observers and the logging observer learn of it.
final class CacheConventionsTests: XCTestCase {
    private final class Recorder: NetworkObserver, @unchecked Sendable {  // events is under its lock.
        private let lock = NSLock()
        private var recorded: [String] = []
        var events: [String] { lock.withLock { recorded } }
        func willSend(_ request: URLRequest, context: RequestContext) { lock.withLock { recorded.append("send") } }
        func didReceive(_ response: HTTPResponse, context: RequestContext) {
            lock.withLock { recorded.append("receive \(response.cacheStatus)") }
        }
    }

    func testCallbacksAsyncAndBlockingCallsAllGetTheCachedAnswer() async throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60")]))
        let network = makeCachingNetwork()
        let url = server.url("/r")
        _ = try cachedGET(url, on: network)

        let done = expectation(description: "callback")
        network.schedule(Request<Data>.get(url).withResponse(), callbackQueue: .global()) { result in
            XCTAssertEqual(try? result.get().response.cacheStatus, .cached)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 10)
        let awaited = try await network.response(for: Request<Data>.get(url).withResponse())
        XCTAssertEqual(awaited.response.cacheStatus, .cached)
        XCTAssertEqual(awaited.value, Data("stored body".utf8))
        XCTAssertEqual(route.count, 1)
    }

    /// A cancel racing the cached answer (on the delegate queue): exactly one completion, the
    /// answer or the cancel, and nothing left running.
    func testACancelRacingACachedAnswerEndsItExactlyOnce() throws {
        let server = try makeServer()
        let route = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60")]))
        let network = makeCachingNetwork(limit: 2)
        let url = server.url("/r")
        _ = try cachedGET(url, on: network)
        let ends = Box<Int>(0)
        let group = DispatchGroup()
        for index in 0..<200 {
            group.enter()
            let task = network.schedule(Request<Data>.get(url), callbackQueue: .global()) { result in
                switch result {
                case .success(let body): XCTAssertEqual(body, Data("stored body".utf8))
                case .failure(let error):
                    guard case NetworkError.cancelled = error else { return XCTFail("\(error)") }
                }
                ends.mutate { $0! += 1 }
                group.leave()
            }
            if index % 2 == 0 { task.cancel() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(ends.value, 200, "one end each")
        // The slots all came back: one more request runs at once.
        XCTAssertEqual(try cachedGET(url, on: network).response.cacheStatus, .cached)
        XCTAssertEqual(route.count, 1)
    }

    func testObserversSeeTheCachedAnswerAndNoRequestSentAndTheLogSaysWhereItCameFrom() throws {
        let server = try makeServer()
        _ = CountingRoute(on: server, path: "/r", .init(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v\"")]))
        let network = makeCachingNetwork()
        let recorder = Recorder()
        let lines = Box<[String]>([])
        network.observers = [recorder, LoggingObserver(write: { line in lines.mutate { $0?.append(line) } })]
        _ = try cachedGET(server.url("/r"), on: network)
        _ = try cachedGET(server.url("/r"), on: network)
        XCTAssertEqual(recorder.events, ["send", "receive network", "receive cached"])
        XCTAssertEqual((lines.value ?? []).filter { $0.contains("← 200") }.count, 2)
        XCTAssertTrue((lines.value ?? []).contains { $0.contains("← 200 (11 bytes, cached)") }, "\(lines.value ?? [])")
    }
}
