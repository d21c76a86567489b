import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `TransferMetrics` and `HTTPResponse.httpVersion` on both engines, against nginx's plain
/// HTTP/1.1 listener and the loopback test server: what each engine fills, that failures say how
/// far they got, and that observers see every attempt's metrics.
final class MetricsTests: XCTestCase {
    override class func tearDown() {
        NginxFixture.tearDownShared()
        super.tearDown()
    }

    private var isCurl: Bool { makeNetwork().engine == .curl }

    // MARK: - A complete response

    func testACompleteResponseCarriesTheMetricsEachEngineCanMeasure() throws {
        let server = try nginx()
        let network = makeNetwork()
        let page = try XCTUnwrap(result(of: Request<Data>.get(server.plainURL(NginxServer.smallFile + "?complete")).withResponse(),
                                        on: network)).get()
        XCTAssertEqual(page.value.count, NginxServer.smallSize)
        let metrics = try XCTUnwrap(page.response.metrics)
        XCTAssertEqual(metrics.phase, .complete)
        XCTAssertGreaterThan(metrics.total, 0)
        let firstByte = try XCTUnwrap(metrics.firstByte)
        XCTAssertLessThanOrEqual(firstByte, metrics.total)
        let entry = try XCTUnwrap(logged(server, NginxServer.smallFile + "?complete").first)
        switch network.engine {
        case .curl:
            XCTAssertEqual(page.response.httpVersion, .http1_1)
            XCTAssertEqual(metrics.httpVersion, .http1_1)
            assertTimelineInOrder(metrics)
            XCTAssertNotNil(metrics.nameLookup)
            XCTAssertNotNil(metrics.connect)
            XCTAssertNil(metrics.tlsHandshake, "plain http: no handshake")
            XCTAssertNotNil(metrics.requestSent)
            XCTAssertEqual(metrics.redirectTime, 0)
            XCTAssertEqual(metrics.remoteAddress, "127.0.0.1")
            XCTAssertEqual(metrics.remotePort, server.plainPort)
            XCTAssertEqual(metrics.localAddress, "127.0.0.1")
            XCTAssertEqual(metrics.localPort, entry.clientPort, "the server saw the same connection")
            XCTAssertEqual(metrics.reusedConnection, false)
            XCTAssertEqual(metrics.bytesReceived, Int64(NginxServer.smallSize))
            XCTAssertEqual(metrics.bytesSent, 0)
            XCTAssertGreaterThan(try XCTUnwrap(metrics.headerBytes), 100)
            // libcurl's request head: what nginx counts as the request's length.
            XCTAssertEqual(metrics.requestBytes, entry.requestLength)
        default:
            // FoundationNetworking drops the status line's version and delivers no metrics:
            // Courier times the first byte and the total itself, and says nothing else.
            XCTAssertEqual(page.response.httpVersion, .unknown)
            XCTAssertEqual(metrics.timeline.map(\.name), ["time_starttransfer", "time_total"])
            XCTAssertNil(metrics.httpVersion)
            XCTAssertNil(metrics.remoteAddress)
            XCTAssertNil(metrics.reusedConnection)
            XCTAssertNil(metrics.bytesReceived)
        }
    }

    func testAWithResponseOutputCarriesItsResponsesMetrics() throws {
        let server = try makeServer()
        server.route("/hello") { _, writer in writer.respond(status: 200, text: "hello") }
        let network = makeNetwork()
        let started = Date()
        let page = try XCTUnwrap(result(of: Request<Data>.get(server.url("/hello")).withResponse(), on: network)).get()
        let elapsed = Date().timeIntervalSince(started)
        let metrics = try XCTUnwrap(page.metrics, "a request that went over the network is measured")
        XCTAssertEqual(metrics, page.response.metrics, "the response's own metrics")
        XCTAssertEqual(metrics.phase, .complete)
        XCTAssertGreaterThan(metrics.total, 0)
        XCTAssertLessThanOrEqual(metrics.total, elapsed, "no longer than the call took")
        let firstByte = try XCTUnwrap(metrics.firstByte)
        XCTAssertLessThanOrEqual(firstByte, metrics.total)
        if network.engine == .curl {
            assertTimelineInOrder(metrics)
            XCTAssertEqual(metrics.remoteAddress, "127.0.0.1")
            XCTAssertEqual(metrics.remotePort, server.port)
            XCTAssertEqual(metrics.bytesReceived, 5)
        }
        XCTAssertNil(Response(value: Data(), response: HTTPResponse(statusCode: 200)).metrics, "one made by hand has none")
    }

    func testMetricsTakeNoPartInEqualityOrHashing() {
        let url = URL(string: "http://example.test/x")
        let plain = HTTPResponse(statusCode: 200, headers: ["A": "1"], url: url, body: Data("x".utf8))
        var measured = plain
        measured.metrics = TransferMetrics(total: 1.5, firstByte: 0.5, phase: .complete)
        XCTAssertEqual(plain, measured)
        XCTAssertEqual(plain.hashValue, measured.hashValue)
        XCTAssertEqual(Set([plain, measured]).count, 1)
        var otherVersion = plain
        otherVersion.httpVersion = .http2
        XCTAssertNotEqual(plain, otherVersion, "the version is part of the message")
    }

    func testTheVersionPrintsAsAStatusLineWritesIt() {
        XCTAssertEqual(HTTPVersion.http1_0.description, "HTTP/1.0")
        XCTAssertEqual(HTTPVersion.http1_1.description, "HTTP/1.1")
        XCTAssertEqual(HTTPVersion.http2.description, "HTTP/2")
        XCTAssertEqual(HTTPVersion.http3.description, "HTTP/3")
        XCTAssertEqual(HTTPVersion.unknown.description, "unknown")
        XCTAssertLessThan(HTTPVersion.http1_1, .http2)
        XCTAssertLessThan(HTTPVersion.unknown, .http1_0)
    }

    func testASecondRequestReusesTheConnection() throws {
        guard isCurl else { throw XCTSkip("URLSession on Linux reports no connection (FoundationNetworking delivers no metrics)") }
        let server = try nginx()
        let network = makeNetwork()
        network.cache = nil   // nginx's Last-Modified makes its file fresh for a while: the second would be a cached answer
        let first = try XCTUnwrap(result(of: Request<Data>.get(server.plainURL(NginxServer.helloPath)).withResponse(), on: network)).get()
        let second = try XCTUnwrap(result(of: Request<Data>.get(server.plainURL(NginxServer.helloPath)).withResponse(), on: network)).get()
        let (before, after) = (try XCTUnwrap(first.response.metrics), try XCTUnwrap(second.response.metrics))
        XCTAssertEqual(before.reusedConnection, false)
        XCTAssertEqual(after.reusedConnection, true)
        // No connection was made: 7.88 reports no connect time then, 7.74 the moment it took the cached one.
        XCTAssertLessThanOrEqual(after.connect ?? 0, after.total)
        XCTAssertEqual(after.localPort, before.localPort)
        assertTimelineInOrder(after)
    }

    func testACompressedBodyCountsTheBytesThatCameOverTheWire() throws {
        guard isCurl else { throw XCTSkip("URLSession on Linux reports no byte counts (FoundationNetworking delivers no metrics)") }
        let server = try makeServer()
        server.route("/gzip") { _, writer in
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain"], body: Gzip.fixture)
        }
        let page = try XCTUnwrap(result(of: Request<Data>.get(server.url("/gzip")).string().withResponse(), on: makeNetwork())).get()
        XCTAssertEqual(page.value, Gzip.fixtureText)
        XCTAssertEqual(page.response.metrics?.bytesReceived, Int64(Gzip.fixture.count), "compressed, as received")
    }

    // MARK: - Failures

    /// The error a request for `url` ends with, and its metrics.
    private func failure(of url: URL, on network: Network, file: StaticString = #filePath, line: UInt = #line) -> NetworkError? {
        networkError(result(of: Request<Data>.get(url), on: network, file: file, line: line), file: file, line: line)
    }

    func testAFailedAttemptSaysHowFarItGot() throws {
        let server = try makeServer()
        server.route("/silent") { _, writer in writer.closeConnection() }
        server.route("/cut") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "100")])
            writer.write(Data(repeating: 1, count: 10))
            writer.closeConnection()
        }
        let network = makeNetwork()
        let unresolvable = URL(string: "http://\(String(repeating: "a", count: 70)).invalid/")!
        let refused = URL(string: "http://127.0.0.1:\(TestServer.unusedPort())/")!
        let cases: [(URL, TransferMetrics.Phase)] = [
            (unresolvable, .resolvingHost), (refused, .connecting),
            (server.url("/silent"), .waitingForHead), (server.url("/cut"), .receivingBody),
        ]
        for (url, phase) in cases {
            let error = try XCTUnwrap(failure(of: url, on: network), "\(url)")
            let metrics = try XCTUnwrap(error.metrics, "\(error)")
            XCTAssertGreaterThan(metrics.total, 0, "\(url): \(error); \(metrics.timeline)")
            if isCurl {
                XCTAssertEqual(metrics.phase, phase, "\(url): \(error)")
            } else {
                // Courier's own clock: when the head came, if it did, and the end.
                XCTAssertEqual(metrics.phase, phase == .receivingBody ? .receivingBody : nil, "\(url): \(error)")
            }
        }
    }

    func testAnUntrustedServerFailsInTheHandshake() throws {
        guard isCurl else { throw XCTSkip("URLSession on Linux cannot be told to trust the test CA: the failures it can reach are in testAFailedAttemptSaysHowFarItGot") }
        let server = try nginx()
        let error = try XCTUnwrap(failure(of: server.tlsURL(NginxServer.helloPath), on: try makeCurlNetwork()))
        guard case .tls(.untrustedCertificate, _) = error else { return XCTFail("expected an untrusted certificate, got \(error)") }
        XCTAssertEqual(error.metrics?.phase, .tlsHandshake)
        XCTAssertEqual(error.metrics?.reusedConnection, false, "a connection was made")
        XCTAssertNil(error.metrics?.tlsHandshake)
    }

    func testAnErrorStatusCarriesTheResponsesMetrics() throws {
        let server = try nginx()
        let error = try XCTUnwrap(failure(of: server.plainURL("/missing"), on: makeNetwork()))
        guard case let .httpStatus(response) = error else { return XCTFail("expected 404, got \(error)") }
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(error.metrics, response.metrics)
        XCTAssertEqual(error.metrics?.phase, .complete)
    }

    // MARK: - Observers

    func testObserversSeeEveryAttemptsMetricsDownloadsIncluded() throws {
        let server = try nginx()
        let network = makeNetwork()
        let recorder = MetricsRecorder()
        let responses = ResponseRecorder()
        network.observers = [recorder, responses]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        _ = try network.downloadSynchronously(Request<Data>.get(server.plainURL(NginxServer.smallFile)),
                                              to: folder.appendingPathComponent("small.bin"), options: .createDirectories).get()
        XCTAssertEqual(recorder.metrics.count, 1)
        XCTAssertEqual(recorder.metrics.first?.phase, .complete)
        if isCurl { XCTAssertEqual(recorder.metrics.first?.bytesReceived, Int64(NginxServer.smallSize)) }
        // A download's head reaches the observers before its body: without metrics.
        XCTAssertNil(responses.responses.last?.metrics)

        _ = try network.scheduleSynchronously(Request<Data>.get(server.plainURL(NginxServer.helloPath))).get()
        XCTAssertEqual(recorder.metrics.count, 2)
        // An in-memory response reaches them whole, with the same metrics.
        XCTAssertEqual(responses.responses.last?.metrics, recorder.metrics.last)
    }
}

/// Records the responses an observer is told about.
final class ResponseRecorder: NetworkObserver {
    private let store = Locked<[HTTPResponse]>([])
    var responses: [HTTPResponse] { store.withLock { $0 } }

    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        store.withLock { $0.append(response) }
    }
}
