@testable import Courier
import Foundation
import XCTest

/// The blocking call works from every kind of thread and never goes through the callback queue.
final class SynchronousTests: XCTestCase {
    func testFromTheMainThreadWhileTheCallbackQueueIsMain() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(callbackQueue: .main)
        XCTAssertTrue(Thread.isMainThread)
        let progressEvents = Box<Int>(0)
        let result = network.scheduleSynchronously(Request<Data>.get(server.url("/bytes?n=300000")), timeout: 20) { _ in
            progressEvents.mutate { $0! += 1 }
        }
        XCTAssertEqual(try result.get().count, 300_000)
        // The main thread was blocked the whole time, so these cannot have come through `.main`.
        XCTAssertGreaterThan(progressEvents.value ?? 0, 0)
    }

    func testFromAGlobalQueue() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let done = expectation(description: "done")
        DispatchQueue.global().async {
            XCTAssertEqual(try? network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string()).get(), "hello")
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
    }

    func testFromInsideACompletionHandlerOfTheSameNetwork() throws {
        let server = try makeServer().withStandardRoutes()
        for callbackQueue in [DispatchQueue.main, DispatchQueue(label: "test.serial")] {
            let network = makeNetwork(limit: 1, callbackQueue: callbackQueue)
            let done = expectation(description: "nested")
            network.schedule(Request<Data>.get(server.url("/hello"))) { outer in
                XCTAssertNotNil(try? outer.get())
                let inner = network.scheduleSynchronously(Request<Data>.get(server.url("/post")).decoding(Post.self), timeout: 20)
                XCTAssertEqual(try? inner.get(), Post(id: 1, title: "First"))
                done.fulfill()
            }
            wait(for: [done], timeout: 30)
        }
    }

    func testFromInsideAProgressHandlerOfTheSameNetwork() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 1, callbackQueue: DispatchQueue(label: "test.serial"))
        let nested = Box<String>()
        let done = expectation(description: "outer done")
        network.schedule(Request<Data>.get(server.url("/bytes?n=200000"))) { _ in
            if nested.value == nil {
                nested.value = (try? network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20).get()) ?? "failed"
            }
        } completion: { result in
            XCTAssertNotNil(try? result.get())
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(nested.value, "hello")
    }

    func testFromInsideSwiftTasksThatFillTheCooperativePool() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 2)
        let taskCount = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let done = expectation(description: "tasks")
        done.expectedFulfillmentCount = taskCount
        for _ in 0..<taskCount {
            Task.detached {
                // Blocks a cooperative thread on purpose: the core must not need one to finish.
                let result = network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20)
                XCTAssertEqual(try? result.get(), "hello")
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 60)
    }

    func testFromManyThreadsAtOnceWithLimitOne() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 1)
        let threads = 12
        let done = expectation(description: "threads")
        done.expectedFulfillmentCount = threads
        for index in 0..<threads {
            Thread {
                let result = network.scheduleSynchronously(Request<Data>.get(server.url("/bytes?n=\(1000 + index)")), timeout: 30)
                XCTAssertEqual(try? result.get().count, 1000 + index)
                done.fulfill()
            }.start()
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(server.maxConcurrentRequests, 1)
        XCTAssertEqual(server.requestCount, threads)
    }

    func testTheWaitTimeoutCancelsTheRequest() throws {
        let server = try makeServer()
        holdRequests(at: "/hold", on: server)
        let network = makeNetwork(limit: 1)
        let result = network.scheduleSynchronously(Request<Data>.get(server.url("/hold")), timeout: 0.3)
        guard case .timedOut? = networkError(result) else { return XCTFail("expected timedOut") }
        // The slot was given back: the next request runs although the server still holds the first.
        server.route("/other") { _, writer in writer.respond(status: 200, text: "other") }
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/other")).string(), timeout: 20).get(), "other")
    }

    func testErrorsComeBackAsTheyDoWithCallbacks() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        guard case let .httpStatus(response)? = networkError(network.scheduleSynchronously(Request<Data>.get(server.url("/status?code=404")))) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.text, "status 404 body")
        guard case .invalidURL? = networkError(network.scheduleSynchronously(Request<Data>.get("http://bad host/"))) else {
            return XCTFail("expected invalidURL")
        }
    }

    func testRefusesAtOnceWhereItCouldNeverFinish() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        // Courier's delegate queue is where responses arrive; blocking it could never end.
        let result = network.core.delegateQueue.sync {
            network.scheduleSynchronously(Request<Data>.get(server.url("/hello")))
        }
        guard case let .wouldDeadlock(reason)? = networkError(result) else { return XCTFail("expected wouldDeadlock") }
        XCTAssertTrue(reason.contains("delegate queue"), reason)
        XCTAssertEqual(server.requestCount, 0)
        // The network itself is unharmed.
        XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 20).get(), "hello")
    }
}
