import Courier
import Foundation
import XCTest

/// async/await is a thin bridge: same results, same errors, and Task cancellation reaches the request.
final class AsyncTests: XCTestCase {
    func testReturnsTheOutput() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let post = try await network.response(for: Request<Data>.get(server.url("/post")).decoding(Post.self))
        XCTAssertEqual(post, Post(id: 1, title: "First"))
        let text = try await Request<Data>.get(server.url("/hello")).string().response(on: network)
        XCTAssertEqual(text, "hello")
    }

    func testThrowsTheSameTypedErrors() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        do {
            _ = try await network.response(for: Request<Data>.get(server.url("/status?code=500")))
            XCTFail("expected an error")
        } catch let NetworkError.httpStatus(response) {
            XCTAssertEqual(response.statusCode, 500)
            XCTAssertEqual(response.text, "status 500 body")
        }
    }

    func testCancellingTheTaskCancelsTheRequest() async throws {
        let server = try makeServer()
        let arrived = expectation(description: "the server has the request")
        holdRequests(at: "/hold", on: server) { arrived.fulfill() }
        let network = makeNetwork()
        let task = Task { try await network.response(for: Request<Data>.get(server.url("/hold"))) }
        await fulfillment(of: [arrived], timeout: 10)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected CancellationError")
        } catch is CancellationError {
            // Thrown while the server still holds the response.
            XCTAssertEqual(server.currentConcurrentRequests, 1)
        }
    }

    func testAnAlreadyCancelledTaskSendsNothing() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await network.response(for: Request<Data>.get(server.url("/hello")))
        }
        do {
            _ = try await task.value
            XCTFail("expected CancellationError")
        } catch is CancellationError {}
        XCTAssertEqual(server.requestCount, 0)
    }

    func testProgressIsReported() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let events = Box<[Int64]>([])
        let body = try await network.response(for: Request<Data>.get(server.url("/bytes?n=500000"))) { progress in
            events.mutate { $0?.append(progress.completedBytes) }
        }
        XCTAssertEqual(body.count, 500_000)
        // Progress and the result share one serial queue: the final event has run already.
        XCTAssertEqual(events.value?.last, 500_000)
        XCTAssertEqual(events.value, events.value?.sorted())
    }

    func testManyConcurrentCallersShareTheLimit() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 2)
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask { try await network.response(for: Request<Data>.get(server.url("/hello")).string()) }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: "hello", count: 50))
        XCTAssertLessThanOrEqual(server.maxConcurrentRequests, 2)
    }
}
