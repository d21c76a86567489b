import Courier
import Foundation
import XCTest

/// `events(for:)`: progress, then the output; cancelling the consumer cancels the transfer.
final class EventStreamTests: XCTestCase {
    func testYieldsProgressThenTheOutput() async throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        var progress: [Int64] = []
        var output: Data?
        for try await event in network.events(for: Request<Data>.get(server.url("/bytes?n=400000"))) {
            XCTAssertNil(output, "nothing follows .finished")
            switch event {
            case let .progress(value): progress.append(value.completedBytes)
            case let .finished(data): output = data
            }
        }
        XCTAssertEqual(output?.count, 400_000)
        XCTAssertEqual(progress.last, 400_000)
        XCTAssertEqual(progress, progress.sorted())
    }

    func testThrowsTheRequestsError() async throws {
        let server = try makeServer().withStandardRoutes()
        do {
            for try await _ in makeNetwork().events(for: Request<Data>.get(server.url("/status?code=503"))) {}
            XCTFail("expected an error")
        } catch let NetworkError.httpStatus(response) {
            XCTAssertEqual(response.statusCode, 503)
        }
    }

    func testCancellingTheConsumerCancelsTheTransfer() async throws {
        let server = try makeServer().withStandardRoutes()
        let gate = Gate()
        let arrived = expectation(description: "held request arrived")
        let released = Box<Bool>(false)
        addTeardownBlock { gate.open() }
        server.route("/hold") { _, writer in
            arrived.fulfill()
            gate.wait(timeout: 30)
            released.value = true
            writer.respond(status: 200, text: "late")
        }
        let network = makeNetwork(limit: 1)
        let consumer = Task {
            for try await _ in network.events(for: Request<Data>.get(server.url("/hold"))) {}
        }
        await fulfillment(of: [arrived], timeout: 10)
        consumer.cancel()
        _ = await consumer.result
        // With a limit of 1, this can only run if the held transfer was cancelled and gave back
        // its slot: the server is still holding it.
        let text = try await network.response(for: Request<Data>.get(server.url("/hello")).string())
        XCTAssertEqual(text, "hello")
        XCTAssertEqual(released.value, false)
    }
}
