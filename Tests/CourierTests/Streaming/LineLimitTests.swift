@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A server that never ends a line (or a server-sent event) cannot make Courier hold it whole:
/// lines and events are held up to a maximum size (1 MiB by default), and past it the stream
/// ends with `NetworkError.limitExceeded` and the transfer stops.
final class LineLimitTests: XCTestCase {
    private static let chunk = Data(repeating: UInt8(ascii: "a"), count: 64 << 10)

    // MARK: - What the splitter and the parser hold

    func testTheLineSplitterNeverHoldsMoreThanItsLimit() throws {
        let limit = 1 << 20
        for endings in [LineSplitter.Endings.lineFeed, .any] {
            var splitter = LineSplitter(endings: endings, maximumLength: limit)
            var fed = 0
            var failure: NetworkError?
            // 200 MB of one line, as a server without a newline would send it.
            while fed < 200_000_000 {
                do {
                    let lines = try splitter.lines(in: Self.chunk)
                    XCTAssertEqual(lines, [])
                } catch {
                    failure = error
                    break
                }
                fed += Self.chunk.count
                XCTAssertLessThanOrEqual(splitter.pendingByteCount, limit, "held after \(fed) bytes")
            }
            guard case let .limitExceeded(exceeded)? = failure else { return XCTFail("\(endings): expected limitExceeded, fed \(fed)") }
            XCTAssertEqual(exceeded.kind, .lineLength)
            XCTAssertEqual(exceeded.limit, Int64(limit))
            XCTAssertEqual(exceeded.received, Int64(limit + Self.chunk.count), "the line's length when it passed the limit")
            XCTAssertEqual(fed, limit, "the error comes with the first chunk past the limit")
            XCTAssertEqual(splitter.pendingByteCount, 0, "nothing is kept after the error")
        }
    }

    func testLinesUpToTheLimitPassWhateverTheirEndingAndSplit() throws {
        let line = String(repeating: "x", count: 10)
        for ending in ["\n", "\r\n"] {
            let text = Data((line + ending + line + ending).utf8)
            for cut in 0...text.count {
                var splitter = LineSplitter(endings: .lineFeed, maximumLength: 10)
                let lines = try splitter.lines(in: text.prefix(cut)) + splitter.lines(in: text.dropFirst(cut))
                XCTAssertEqual(lines.map { String(decoding: $0, as: UTF8.self) }, [line, line], "\(ending.debugDescription) cut at \(cut)")
            }
            var splitter = LineSplitter(endings: .lineFeed, maximumLength: 9)
            XCTAssertThrowsError(try splitter.lines(in: text), "a line of 10 bytes ended in one chunk is past a limit of 9")
        }
    }

    func testAServerSentEventIsHeldUpToItsLimitAndCommentsHoldNothing() throws {
        var decoder = ServerSentEventDecoder(maximumEventSize: 1000)
        // Comments between events (keep-alives) cost nothing, however many.
        for _ in 0..<10_000 { XCTAssertEqual(try decoder.events(in: Data(": keep-alive\n".utf8)), []) }
        XCTAssertEqual(try decoder.events(in: Data("data: small\n\n".utf8)), [ServerSentEvent(data: "small")])
        // Short data lines, and never the empty line that dispatches them.
        var failure: NetworkError?
        for _ in 0..<1000 {
            do {
                _ = try decoder.events(in: Data("data: 0123456789\n".utf8))
            } catch {
                failure = error
                break
            }
            XCTAssertLessThanOrEqual(decoder.pendingByteCount, 1000)
        }
        guard case let .limitExceeded(exceeded)? = failure else { return XCTFail("expected limitExceeded") }
        XCTAssertEqual(exceeded.kind, .eventSize)
        XCTAssertEqual(exceeded.limit, 1000)
    }

    // MARK: - Against a server

    /// A route that sends `prefix` and then `a`s without end (up to `total` bytes), 64 KiB at a
    /// time, until the client goes; `sent` has the bytes written once `done` is fulfilled.
    private func routeEndlessLine(_ path: String, prefix: String, total: Int, on server: TestServer,
                                  sent: Box<Int>, done: XCTestExpectation) {
        server.route(path) { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Type", "text/event-stream")])
            writer.write(Data(prefix.utf8))
            var written = prefix.utf8.count
            while written < total, !writer.peerHasGone {
                writer.write(Self.chunk)
                written += Self.chunk.count
            }
            sent.value = written
            writer.closeConnection()
            done.fulfill()
        }
    }

    private func assertLimit(_ error: any Error, kind: LimitExceeded.Kind, limit: Int,
                             file: StaticString = #filePath, line: UInt = #line) {
        guard case let .limitExceeded(exceeded)? = error as? NetworkError else {
            return XCTFail("expected limitExceeded, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(exceeded.kind, kind, file: file, line: line)
        XCTAssertEqual(exceeded.limit, Int64(limit), file: file, line: line)
        XCTAssertGreaterThan(exceeded.received, Int64(limit), file: file, line: line)
    }

    /// On the curl engine the transfer stops at once; URLSession on Linux may read on after a
    /// cancel (Sources/Courier/Courier.docc/LinuxNotes.md), so there only the error is checked.
    private func assertTheBytesStopped(_ sent: Int, on network: Network, file: StaticString = #filePath, line: UInt = #line) {
        print("an endless line: the server wrote \(sent >> 20) MiB before the client went (\(network.engine))")
        guard network.engine == .curl else { return }
        XCTAssertLessThan(sent, 64 << 20, "the transfer stopped after the limit", file: file, line: line)
    }

    func testAnEndlessLineEndsTheLinesWithLimitExceededAndStopsTheTransfer() async throws {
        let server = try makeServer()
        let sent = Box<Int>(0)
        let done = expectation(description: "the server stopped writing")
        routeEndlessLine("/line", prefix: "first line\n", total: 200_000_000, on: server, sent: sent, done: done)
        let network = makeNetwork()
        let (_, body) = try await network.bytes(for: Request<Data>(url: server.url("/line"), timeout: 120))
        var lines: [String] = []
        do {
            for try await line in body.lines { lines.append(line) }
            XCTFail("the lines ended without an error")
        } catch {
            assertLimit(error, kind: .lineLength, limit: ResponseBodyStream.defaultMaximumLineLength)
        }
        XCTAssertEqual(lines, ["first line"], "the lines before the long one are delivered")
        await fulfillment(of: [done], timeout: 60)
        assertTheBytesStopped(sent.value ?? 0, on: network)
    }

    func testAChosenMaximumLineLength() async throws {
        let server = try makeServer()
        server.route("/short") { _, writer in writer.respond(status: 200, text: "0123456789\nabcdefghijk\n") }
        let network = makeNetwork()
        let (_, body) = try await network.bytes(for: Request<Data>.get(server.url("/short")))
        var lines: [String] = []
        do {
            for try await line in body.lines(maximumLength: 10) { lines.append(line) }
            XCTFail("an 11-byte line passed a limit of 10")
        } catch {
            assertLimit(error, kind: .lineLength, limit: 10)
        }
        XCTAssertEqual(lines, ["0123456789"])
    }

    func testAnEndlessServerSentEventEndsTheSequenceWithLimitExceeded() async throws {
        let server = try makeServer()
        let sent = Box<Int>(0)
        let done = expectation(description: "the server stopped writing")
        routeEndlessLine("/events", prefix: "data: one\n\ndata: ", total: 200_000_000, on: server, sent: sent, done: done)
        let network = makeNetwork()
        let (_, body) = try await network.bytes(for: Request<Data>(url: server.url("/events"), timeout: 120))
        var events: [ServerSentEvent] = []
        do {
            for try await event in body.serverSentEvents(maximumEventSize: 256 << 10) { events.append(event) }
            XCTFail("the events ended without an error")
        } catch {
            assertLimit(error, kind: .eventSize, limit: 256 << 10)
        }
        XCTAssertEqual(events, [ServerSentEvent(data: "one")])
        await fulfillment(of: [done], timeout: 60)
        assertTheBytesStopped(sent.value ?? 0, on: network)
    }

    func testTheCallbackFormReportsTheLimitInItsCompletion() throws {
        let server = try makeServer()
        let sent = Box<Int>(0)
        let written = expectation(description: "the server stopped writing")
        routeEndlessLine("/events", prefix: "data: one\n\n", total: 200_000_000, on: server, sent: sent, done: written)
        let network = makeNetwork()
        let events = Box<[ServerSentEvent]>([])
        let outcome = Box<Result<HTTPResponse, any Error>>()
        let done = expectation(description: "completion")
        network.streamServerSentEvents(Request<Data>(url: server.url("/events"), timeout: 120), onEvent: { event in
            events.mutate { $0?.append(event) }
        }, completion: { result in
            outcome.value = result
            done.fulfill()
        })
        wait(for: [done, written], timeout: 60)
        guard case let .failure(error)? = outcome.value else { return XCTFail("expected a failure, got \(String(describing: outcome.value))") }
        assertLimit(error, kind: .eventSize, limit: ResponseBodyStream.defaultMaximumEventSize)
        XCTAssertEqual(events.value, [ServerSentEvent(data: "one")])
        assertTheBytesStopped(sent.value ?? 0, on: network)
    }

    func testLimitsAreNotRetried() {
        let policy = RetryPolicy(maxAttempts: 5, retriesNonIdempotentRequests: true, retryableErrorCodes: Set(-2000...0))
        for kind in [LimitExceeded.Kind.decompressionRatio, .lineLength, .eventSize, LimitExceeded.Kind(rawValue: "future")] {
            let error = NetworkError.limitExceeded(LimitExceeded(kind: kind, limit: 1, received: 2))
            XCTAssertNil(policy.delay(afterAttempt: 1, method: .get, error: error), "\(kind)")
        }
    }
}
