import Courier
import Foundation
import XCTest

/// What a stream hands over, end to end against the loopback server: lines and events cut
/// across chunk boundaries the server forces, the head first, and error statuses.
final class StreamContentTests: XCTestCase {
    /// A route that writes `parts` one by one, each after the previous gate opened (the test
    /// opens gate `n` once it has seen what part `n` completes), so that the client really gets
    /// them as separate chunks, cut where the test says.
    private func routeParts(_ path: String, on server: TestServer, contentType: String, _ parts: [Data]) -> [Gate] {
        let gates = parts.dropFirst().map { _ in Gate() }
        addTeardownBlock { gates.forEach { $0.open() } }
        server.route(path) { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Type", contentType), ("Content-Length", String(parts.reduce(0) { $0 + $1.count }))])
            for (index, part) in parts.enumerated() {
                if index > 0 { gates[index - 1].wait(timeout: 30) }
                writer.write(part)
            }
        }
        return gates
    }

    func testNDJSONLinesCutAcrossChunksComeOutWhole() async throws {
        let server = try makeServer()
        // Line 2 is cut in the middle, and inside the two bytes of "é".
        let parts = [Data(#"{"id":1}"#.utf8) + Data("\n".utf8) + Data(#"{"id":2,"name":"caf"#.utf8) + Data([0xC3]),
                     Data([0xA9]) + Data(#""}"#.utf8) + Data("\n".utf8) + Data(#"{"id":3}"#.utf8)]
        let gates = routeParts("/ndjson", on: server, contentType: "application/x-ndjson", parts)
        let network = makeNetwork()
        let (response, body) = try await network.bytes(for: Request<Data>.get(server.url("/ndjson")))
        XCTAssertEqual(response.headers["Content-Type"], "application/x-ndjson")
        var lines: [String] = []
        for try await line in body.lines {
            lines.append(line)
            if lines.count == 1 { gates[0].open() }   // line 2 cannot be complete before this
        }
        XCTAssertEqual(lines, [#"{"id":1}"#, #"{"id":2,"name":"café"}"#, #"{"id":3}"#])
        struct Item: Decodable, Equatable { let id: Int }
        XCTAssertEqual(try lines.map { try JSONDecoder().decode(Item.self, from: Data($0.utf8)).id }, [1, 2, 3])
    }

    func testCRLFLinesAndEmptyLines() async throws {
        let server = try makeServer()
        let gates = routeParts("/crlf", on: server, contentType: "text/plain",
                               [Data("one\r\ntwo\r".utf8), Data("\n\r\nthree\r\n".utf8)])
        let network = makeNetwork()
        let (_, body) = try await network.bytes(for: Request<Data>.get(server.url("/crlf")))
        var lines: [String] = []
        for try await line in body.lines {
            lines.append(line)
            if lines == ["one"] { gates[0].open() }
        }
        XCTAssertEqual(lines, ["one", "two", "", "three"])
    }

    private static let feed = [
        ": welcome\n\nevent: update\nid: 1\ndata: first line\ndata: second",
        " line\n\n: keep-alive\n\nretry: 3000\ndata: {\"n\":2}\r\n\r\nevent: done\ndata:\n\n",
    ]

    private static let feedEvents = [
        ServerSentEvent(type: "update", data: "first line\nsecond line", lastEventID: "1"),
        ServerSentEvent(data: #"{"n":2}"#, lastEventID: "1", retry: 3000),
        ServerSentEvent(type: "done", data: "", lastEventID: "1", retry: 3000),
    ]

    func testServerSentEventsAsAnAsyncSequence() async throws {
        let server = try makeServer()
        let gates = routeParts("/events", on: server, contentType: "text/event-stream", Self.feed.map { Data($0.utf8) })
        let network = makeNetwork()
        var request = Request<Data>.get(server.url("/events"))
        request.acceptedContentTypes = ["text/event-stream"]
        request.timeout = .infinity
        let (_, body) = try await network.bytes(for: request)
        var events: [ServerSentEvent] = []
        // The first event is dispatched only by the blank line in the second part.
        gates[0].open()
        for try await event in body.serverSentEvents { events.append(event) }
        XCTAssertEqual(events, Self.feedEvents)
    }

    func testServerSentEventsThroughCallbacksInOrder() throws {
        let server = try makeServer()
        let gates = routeParts("/events", on: server, contentType: "text/event-stream", Self.feed.map { Data($0.utf8) })
        let network = makeNetwork()
        let queue = DispatchQueue(label: "test.events", attributes: .concurrent)
        let log = Box<[String]>([])
        let done = expectation(description: "completion")
        network.streamServerSentEvents(Request<Data>.get(server.url("/events")), callbackQueue: queue, onResponse: { response in
            log.mutate { $0!.append("response \(response.statusCode)") }
            gates[0].open()
        }, onEvent: { event in
            log.mutate { $0!.append("\(event.type): \(event.data)") }
        }, completion: { result in
            log.mutate { $0!.append("completion \((try? result.get().statusCode) ?? 0)") }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(log.value, ["response 200"] + Self.feedEvents.map { "\($0.type): \($0.data)" } + ["completion 200"])
    }

    func testHeadFirstThenChunksInOrderThenOneCompletion() throws {
        let server = try makeServer()
        server.routePattern("/body", length: 3 << 20)
        let network = makeNetwork()
        // A concurrent queue: the handlers must still run one at a time, in order.
        let queue = DispatchQueue(label: "test.concurrent", attributes: .concurrent)
        let verifier = PatternVerifier()
        let log = Box<[String]>([])
        let running = Box<Int>(0)
        let done = expectation(description: "completion")
        network.stream(Request<Data>.get(server.url("/body")), callbackQueue: queue, onResponse: { response in
            log.mutate { $0!.append("head \(response.statusCode) \(response.body.count)") }
        }, onData: { chunk in
            running.mutate { $0! += 1 }
            XCTAssertEqual(running.value, 1, "onData never runs twice at once")
            verifier.consume(chunk)
            running.mutate { $0! -= 1 }
        }, completion: { result in
            log.mutate { $0!.append("completion \((try? result.get().statusCode) ?? 0) after \(verifier.count)") }
            done.fulfill()
        })
        wait(for: [done], timeout: 30)
        XCTAssertEqual(log.value, ["head 200 0", "completion 200 after \(3 << 20)"])
        verifier.assertComplete(3 << 20)
    }

    func testAnErrorStatusGivesItsBodyInTheErrorAndNoData() throws {
        let server = try makeServer()
        server.route("/busy") { _, writer in writer.respond(status: 503, text: "overloaded, retry later") }
        let network = makeNetwork()
        let calls = Box<[String]>([])
        let done = expectation(description: "completion")
        network.stream(Request<Data>.get(server.url("/busy")), onResponse: { _ in
            calls.mutate { $0!.append("response") }
        }, onData: { _ in
            calls.mutate { $0!.append("data") }
        }, completion: { result in
            guard case let .failure(NetworkError.httpStatus(response)) = result else { return XCTFail("\(result)") }
            XCTAssertEqual(response.statusCode, 503)
            XCTAssertEqual(response.text, "overloaded, retry later")
            calls.mutate { $0!.append("completion") }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(calls.value, ["completion"])
    }

    func testAnErrorStatusThrowsFromBytesForAndWritesNothingSynchronously() async throws {
        let server = try makeServer()
        // A large error page: the error carries its first MiB only.
        let page = randomBytes(3 << 20)
        server.route("/missing") { _, writer in writer.respond(status: 404, body: page) }
        let network = makeNetwork()
        do {
            _ = try await network.bytes(for: Request<Data>.get(server.url("/missing")))
            XCTFail("expected an error")
        } catch let NetworkError.httpStatus(response) {
            XCTAssertEqual(response.statusCode, 404)
            XCTAssertEqual(response.body, page.prefix(1 << 20))
        }
        var written = 0
        let result = network.streamSynchronously(Request<Data>.get(server.url("/missing")), timeout: 10) { chunk in written += chunk.count }
        guard case let .failure(NetworkError.httpStatus(response)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(response.body.count, 1 << 20)
        XCTAssertEqual(written, 0)
    }

    func testARetriedStatusBeforeTheHeadIsRetriedAndAFailureAfterItIsNot() throws {
        let server = try makeServer()
        let attempts = ByteCounter()
        server.route("/flaky") { _, writer in
            attempts.add(1)
            if attempts.value == 1 {
                writer.respond(status: 503, text: "again")
            } else {
                writer.writeHead(status: 200, headers: [("Content-Length", "1000")])
                writer.write(Data(repeating: 0x61, count: 10))
                writer.closeConnection()
            }
        }
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0))
        let heads = Box<Int>(0)
        let done = expectation(description: "completion")
        network.stream(Request<Data>.get(server.url("/flaky")), onResponse: { _ in heads.mutate { $0! += 1 } }, onData: { _ in }, completion: { result in
            guard case .failure(NetworkError.incompleteBody) = result else { return XCTFail("\(result)") }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        // The 503 was retried; the cut body, after its head went out, was not.
        XCTAssertEqual(attempts.value, 2)
        XCTAssertEqual(heads.value, 1)
    }
}
