import Courier
import Foundation
import XCTest

/// Ending a stream early, in each convention: the one completion says `.cancelled`, no chunk
/// follows it, the client closes the connection, and the next request gets a connection of its
/// own rather than one left half-read.
final class StreamCancellationTests: XCTestCase {
    /// A body whose last part waits until the test ends: whatever the client does, the first
    /// connection cannot reach the end of the body.
    private func serveHeldBody(on server: TestServer) {
        let rest = Gate()
        addTeardownBlock { rest.open() }
        server.routePattern("/held", length: 64 << 20, hold: (offset: 32 << 20, gate: rest))
    }

    /// The client has closed the stream's connection (the server's side of it is no longer
    /// established), however far the server got.
    private func assertClientClosedTheConnection(_ server: TestServer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(waitUntil(timeout: 30) { openConnections(toPort: server.port) == 0 },
                      "the client closes the stream's connection", file: file, line: line)
    }

    /// The next request works, on a new connection (the cancelled one was not put back in the
    /// pool half-read).
    private func assertNextRequestUsesAFreshConnection(_ network: Network, _ server: TestServer,
                                                       file: StaticString = #filePath, line: UInt = #line) {
        let connections = server.connectionCount
        let result = network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 10)
        XCTAssertEqual(try? result.get(), "hello", file: file, line: line)
        XCTAssertEqual(server.connectionCount, connections + 1, "a fresh connection", file: file, line: line)
    }

    func testCancelFromOnDataCompletesOnceWithCancelledAndNoDataAfter() throws {
        let server = try makeServer().withStandardRoutes()
        serveHeldBody(on: server)
        let network = makeNetwork()
        let task = Box<NetworkTask>()
        let events = Box<[String]>([])
        let completions = expectation(description: "completion")
        completions.assertForOverFulfill = true
        let received = Box<Int>(0)
        task.value = network.stream(Request<Data>(url: server.url("/held"), timeout: 60), onData: { chunk in
            events.mutate { $0!.append("data") }
            received.mutate { $0! += chunk.count }
            if received.value! >= 1 << 20 { task.value?.cancel() }
        }, completion: { result in
            if case .failure(NetworkError.cancelled) = result {} else { XCTFail("\(result)") }
            events.mutate { $0!.append("completion") }
            completions.fulfill()
        })
        wait(for: [completions], timeout: 30)
        assertClientClosedTheConnection(server)
        XCTAssertEqual(events.value?.last, "completion")
        XCTAssertEqual(events.value?.filter { $0 == "completion" }.count, 1)
        XCTAssertEqual(task.value?.state, .cancelled)
        assertNextRequestUsesAFreshConnection(network, server)
        // Nothing more, ever: a late chunk or completion would show here.
        XCTAssertEqual(events.value?.last, "completion")
    }

    func testCancelFromAnotherThreadDropsTheChunksNotDeliveredYet() throws {
        let server = try makeServer().withStandardRoutes()
        serveHeldBody(on: server)
        let network = makeNetwork()
        let inside = Gate()
        let resume = Gate()
        let afterCancel = Box<Int>(0)
        let cancelled = Box<Bool>(false)
        let done = expectation(description: "completion")
        let task = network.stream(Request<Data>(url: server.url("/held"), timeout: 60), onData: { _ in
            if cancelled.value == true { afterCancel.mutate { $0! += 1 } }
            inside.open()
            resume.wait(timeout: 30)   // the buffer fills while this chunk is being handled
        }, completion: { result in
            if case .failure(NetworkError.cancelled) = result {} else { XCTFail("\(result)") }
            done.fulfill()
        })
        XCTAssertTrue(inside.wait(timeout: 10))
        XCTAssertTrue(waitUntil { kernelQueuedBytes(port: server.port) > 0 })   // buffer full, the rest waits
        task.cancel()
        cancelled.value = true
        resume.open()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(afterCancel.value, 0, "no chunk after the cancel")
        assertClientClosedTheConnection(server)
        // On URLSession the stream was waiting for room on the delegate queue, which every
        // request of the network needs: the cancel let it go.
        assertNextRequestUsesAFreshConnection(network, server)
    }

    func testCancellingTheConsumingTaskCancelsTheRequest() async throws {
        let server = try makeServer().withStandardRoutes()
        serveHeldBody(on: server)
        let network = makeNetwork()
        let firstChunk = expectation(description: "a chunk")
        let ended = expectation(description: "the loop ended")
        let thrown = Box<any Error>()
        let consumer = Task {
            do {
                let (_, body) = try await network.bytes(for: Request<Data>(url: server.url("/held"), timeout: 60))
                var fulfilled = false
                for try await _ in body where !fulfilled {
                    fulfilled = true
                    firstChunk.fulfill()
                }
            } catch {
                thrown.value = error
            }
            ended.fulfill()
        }
        await fulfillment(of: [firstChunk], timeout: 10)
        consumer.cancel()
        // Bounded: without the cancel reaching the request, the loop would wait for a body
        // the server holds until the test ends.
        await fulfillment(of: [ended], timeout: 30)
        XCTAssertTrue(thrown.value is CancellationError, "\(String(describing: thrown.value))")
        assertClientClosedTheConnection(server)
        assertNextRequestUsesAFreshConnection(network, server)
    }

    func testDroppingTheSequenceBeforeItsEndCancelsTheRequest() async throws {
        let server = try makeServer().withStandardRoutes()
        serveHeldBody(on: server)
        let network = makeNetwork()
        do {
            let (_, body) = try await network.bytes(for: Request<Data>(url: server.url("/held"), timeout: 60))
            var chunks = 0
            for try await _ in body {
                chunks += 1
                if chunks == 3 { break }
            }
        }
        // Without the cancel, the connection would stay open: the client, paused by
        // backpressure, would wait for a reader that has gone.
        assertClientClosedTheConnection(server)
        assertNextRequestUsesAFreshConnection(network, server)
    }
}
