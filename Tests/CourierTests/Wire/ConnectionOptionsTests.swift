@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `ConnectionOptions` beyond the HTTP version: a Unix domain socket (nginx listens on one, as
/// Docker's and systemd's APIs do) and rate limits, on the curl engine; and what URLSession, which
/// can honour none of them, answers instead.
final class ConnectionOptionsTests: XCTestCase {
    override class func tearDown() {
        NginxFixture.tearDownShared()
        super.tearDown()
    }

    // MARK: - Unix domain sockets

    func testRequestsGoToTheUnixSocket() throws {
        let server = try nginx()
        let network = try wireNetwork(server, connection: ConnectionOptions(unixSocketPath: server.socketPath))
        let first = try fetch(server.socketURL(NginxServer.helloPath + "?socket=1"), on: network)
        let second = try fetch(server.socketURL(NginxServer.helloPath + "?socket=2"), on: network)
        XCTAssertEqual(first.value, NginxServer.helloBody)
        XCTAssertEqual(first.response.httpVersion, .http1_1)
        let metrics = try XCTUnwrap(first.response.metrics)
        XCTAssertEqual(metrics.remoteAddress, server.socketPath)
        XCTAssertNil(metrics.remotePort)
        XCTAssertNil(metrics.localAddress)
        XCTAssertEqual(metrics.reusedConnection, false)
        assertTimelineInOrder(metrics)
        XCTAssertEqual(second.response.metrics?.reusedConnection, true, "the socket's connection is kept like any other")
        // nginx saw both on its socket listener (no client port) and over one connection.
        let entries = logged(server, NginxServer.helloPath + "?socket=1") + logged(server, NginxServer.helloPath + "?socket=2")
        XCTAssertEqual(entries.map(\.clientPort), [0, 0])
        XCTAssertEqual(Set(entries.map(\.connection)).count, 1)
    }

    func testASocketWhereNothingListensFailsConnecting() throws {
        let server = try nginx()
        let path = server.folder.appendingPathComponent("nobody.sock").path
        let network = try wireNetwork(server, connection: ConnectionOptions(unixSocketPath: path))
        let error = networkError(result(of: Request<Data>.get(server.socketURL("/")), on: network))
        guard case let .transport(urlError)? = error else { return XCTFail("expected a transport error, got \(String(describing: error))") }
        XCTAssertEqual(urlError.code, .cannotConnectToHost)
        XCTAssertEqual(error?.metrics?.phase, .connecting)
    }

    func testASocketPathThatCannotWorkIsRefusedOnEitherEngine() throws {
        for engine in [Network.Engine.curl, .urlSession] {
            for (path, reason) in [("", "empty"), ("/tmp/" + String(repeating: "s", count: 120), "107")] {
                let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test"), engine: engine,
                                      connection: ConnectionOptions(unixSocketPath: path))
                let error = networkError(result(of: Request<Data>.get(URL(string: "http://localhost/")!), on: network))
                guard case let .invalidRequest(detail)? = error else {
                    XCTFail("\(engine), \(path.count) bytes: expected invalidRequest, got \(String(describing: error))")
                    continue
                }
                XCTAssertTrue(detail.contains(reason), detail)
            }
        }
    }

    // MARK: - URLSession honours none of it

    func testURLSessionRefusesOptionsItCannotHonourBeforeSendingAnything() throws {
        let server = try nginx()
        let options = [ConnectionOptions(unixSocketPath: server.socketPath), ConnectionOptions(httpVersion: .http1_1),
                       ConnectionOptions(httpVersion: .http2PriorKnowledge), ConnectionOptions(rateLimit: RateLimit(bytesPerSecond: 1000))]
            + [LibcurlOptions(resolve: ["example.com:80:127.0.0.1"]), LibcurlOptions(noProxy: "*"), LibcurlOptions(netrc: .optional)]
            .map { libcurl in
                var connection = ConnectionOptions()
                connection.libcurl = libcurl
                return connection
            }
        for (index, connection) in options.enumerated() {
            let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test"), engine: .urlSession,
                                  connection: connection)
            let uri = NginxServer.helloPath + "?urlsession=\(index)"
            let error = networkError(result(of: Request<Data>.get(server.plainURL(uri)), on: network))
            guard case let .invalidRequest(detail)? = error else {
                XCTFail("\(connection): expected invalidRequest, got \(String(describing: error))")
                continue
            }
            XCTAssertTrue(detail.contains("curl engine"), detail)
        }
        // The default is what URLSession does anyway (HTTP/2 where TLS negotiates it).
        let plain = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test"), engine: .urlSession,
                            connection: ConnectionOptions())
        XCTAssertNoThrow(try XCTUnwrap(result(of: Request<Data>.get(server.plainURL(NginxServer.helloPath + "?urlsession=ok")), on: plain)).get())
        // Nothing of the refused ones reached nginx.
        XCTAssertEqual(logged(server, NginxServer.helloPath + "?urlsession=ok").count, 1)
        XCTAssertEqual(server.logEntries.filter { $0.uri.hasPrefix(NginxServer.helloPath + "?urlsession=") }.count, 1)
    }

    func testARequestsRateLimitIsRefusedOnURLSessionAndWhenItIsNotPositive() throws {
        let server = try nginx()
        var limited = Request<Data>.get(server.plainURL(NginxServer.helloPath))
        limited.rateLimit = RateLimit(receiveBytesPerSecond: 1000)
        let urlSession = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test"), engine: .urlSession)
        guard case let .invalidRequest(detail)? = networkError(result(of: limited, on: urlSession)) else {
            return XCTFail("a rate limit on URLSession must be refused")
        }
        XCTAssertTrue(detail.contains("curl engine"), detail)

        var zero = Request<Data>.get(server.plainURL(NginxServer.helloPath))
        zero.rateLimit = RateLimit(sendBytesPerSecond: 0)
        for network in [makeNetwork(), urlSession] {
            guard case let .invalidRequest(reason)? = networkError(result(of: zero, on: network)) else {
                return XCTFail("\(network.engine): a rate of 0 must be refused")
            }
            XCTAssertTrue(reason.contains("at least 1 byte per second"), reason)
        }
    }

    // MARK: - Rate limits

    /// A limit can only be seen in how long a transfer takes: libcurl keeps its average rate at
    /// or under the limit, so a body of N bytes at R bytes/s cannot take much less than N/R
    /// seconds, however loaded the machine. Only a lower bound is checked, a quarter of N/R: the
    /// libcurls before 8 let about a second's worth through before they first pause (measured,
    /// 7.88.1: 1.0 s for 2 s's worth; 8.14.1: 2.0 s), and without a limit it takes milliseconds.
    /// Nothing here can fail by being slow.
    func testRateLimitsHoldDownloadsStreamsAndUploadsDown() throws {
        let server = try nginx()
        server.backend.route("/sink") { request, writer in writer.respond(status: 200, text: "\(request.body.count)") }
        let rate: Int64 = 128 << 10
        let size = Int64(NginxServer.smallSize)   // 256 KiB: about 2 s at 128 KiB/s
        let expected = Double(size) / Double(rate)
        // The network's limit for the stream; each other request its own, which wins.
        let network = try wireNetwork(server, connection: ConnectionOptions(rateLimit: RateLimit(receiveBytesPerSecond: rate)))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rate-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }

        let done = expectation(description: "three transfers")
        done.expectedFulfillmentCount = 3
        let metrics = Locked([String: TransferMetrics]())
        let recorder = MetricsByURL(store: metrics)
        network.observers = [recorder]

        var download = Request<Data>.get(server.plainURL(NginxServer.smallFile + "?download"))
        download.rateLimit = RateLimit(receiveBytesPerSecond: rate, sendBytesPerSecond: nil)
        network.download(download, to: folder.appendingPathComponent("small.bin"), options: .createDirectories) { _ in done.fulfill() }
        network.stream(Request<Data>.get(server.plainURL(NginxServer.smallFile + "?stream")), onData: { _ in }) { _ in done.fulfill() }
        var upload = Request<Data>(method: .post, url: server.plainURL("/app/sink"),
                                   body: .data(Data(count: Int(size)), contentType: "application/octet-stream"))
        upload.rateLimit = RateLimit(sendBytesPerSecond: rate)
        network.schedule(upload.string()) { result in
            XCTAssertEqual(try? result.get(), "\(size)")
            done.fulfill()
        }
        wait(for: [done], timeout: 60)

        for key in ["?download", "?stream", "/app/sink"] {
            let measured = try XCTUnwrap(metrics.withLock { $0[key] }, key)
            XCTAssertGreaterThanOrEqual(measured.total, expected / 4, "\(key) went faster than its limit: \(measured.timeline)")
        }
        XCTAssertEqual(metrics.withLock { $0["/app/sink"] }?.bytesSent, size)
        XCTAssertEqual(metrics.withLock { $0["?download"] }?.bytesReceived, size)
    }

    func testARequestsLimitWinsOverTheNetworksDirectionByDirection() {
        let network = RateLimit(receiveBytesPerSecond: 100, sendBytesPerSecond: 200)
        XCTAssertEqual(RateLimit(receiveBytesPerSecond: 5).over(network), RateLimit(receiveBytesPerSecond: 5, sendBytesPerSecond: 200))
        XCTAssertEqual(RateLimit().over(network), network)
        XCTAssertEqual(RateLimit(bytesPerSecond: 7), RateLimit(receiveBytesPerSecond: 7, sendBytesPerSecond: 7))
    }
}

/// Keeps each attempt's metrics under the end of its URL (its query, or its path).
private struct MetricsByURL: NetworkObserver {
    let store: Locked<[String: TransferMetrics]>

    func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
        guard let url = context.url else { return }
        store.withLock { $0[url.query.map { "?" + $0 } ?? url.path] = metrics }
    }
}
