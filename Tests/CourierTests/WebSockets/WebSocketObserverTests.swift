@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The network's observers see a WebSocket's upgrade as a request: the `GET`, the server's
/// answer with its timing, or the failure, secrets redacted by the logging observer as for any
/// request. Runs on both engines (a URLSession network's socket is the curl engine's).
final class WebSocketObserverTests: XCTestCase {
    private final class Recorder: NetworkObserver, @unchecked Sendable {  // events is under its lock.
        private let lock = NSLock()
        private var recorded: [String] = []
        private var received: [HTTPResponse] = []
        var events: [String] { lock.withLock { recorded } }
        var responses: [HTTPResponse] { lock.withLock { received } }
        func willSend(_ request: URLRequest, context: RequestContext) {
            lock.withLock { recorded.append("send \(request.httpMethod ?? "?") \(request.value(forHTTPHeaderField: "Upgrade") ?? "-")") }
        }
        func didReceive(_ response: HTTPResponse, context: RequestContext) {
            lock.withLock {
                recorded.append("receive \(response.statusCode)")
                received.append(response)
            }
        }
        func didFail(_ error: NetworkError, context: RequestContext) {
            lock.withLock { recorded.append("fail \(error.caseName)") }
        }
    }

    private func upgradingServer() throws -> TestServer {
        let server = try makeServer()
        server.route("/ws") { request, writer in
            let accept = WebSocketHandshake.accept(for: request.header("Sec-WebSocket-Key") ?? "")
            writer.writeHead(status: 101, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)])
            // A close frame at once (unmasked, code 1000): the socket ends cleanly.
            writer.write(Data([0x88, 0x02, 0x03, 0xE8]))
        }
        server.route("/refused") { _, writer in writer.respond(status: 403, text: "no") }
        return server
    }

    private func run(_ path: String, on server: TestServer, observers: [any NetworkObserver]) -> WebSocketTask {
        let network = makeNetwork()
        network.observers = observers
        let ended = expectation(description: "end")
        var options = WebSocketOptions()
        options.headers = [("Authorization", "Bearer very-secret")]
        let socket = network.webSocket(URL(string: "ws://127.0.0.1:\(server.port)\(path)")!, options: options,
                                       onMessage: { _, _ in }, onEnd: { _ in ended.fulfill() })
        wait(for: [ended], timeout: 10)
        return socket
    }

    func testObserversSeeTheUpgradeAndItsTimingAndTheLogRedactsItsSecrets() throws {
        let server = try upgradingServer()
        let recorder = Recorder()
        let lines = Box<[String]>([])
        let socket = run("/ws", on: server, observers: [recorder, LoggingObserver(write: { line in lines.mutate { $0?.append(line) } })])
        XCTAssertEqual(recorder.events, ["send GET websocket", "receive 101"])
        let head = try XCTUnwrap(recorder.responses.first)
        XCTAssertEqual(head.headers["Upgrade"], "websocket")
        XCTAssertNotNil(head.metrics?.total)
        XCTAssertEqual(socket.handshakeResponse?.metrics?.total, head.metrics?.total, "onOpen's 101 is the one observers saw")
        XCTAssertTrue((lines.value ?? []).contains { $0.contains("→ GET ws://127.0.0.1") && $0.contains("Authorization") }, "\(lines.value ?? [])")
        XCTAssertFalse((lines.value ?? []).joined().contains("very-secret"), "\(lines.value ?? [])")
    }

    func testARefusedUpgradeIsReceivedAndFailsAsAStatus() throws {
        let server = try upgradingServer()
        let recorder = Recorder()
        _ = run("/refused", on: server, observers: [recorder])
        XCTAssertEqual(recorder.events, ["send GET websocket", "receive 403", "fail httpStatus"])
    }

    func testAConnectionThatFailsIsReportedAsTheRequestWouldBe() throws {
        let server = try makeServer()
        let port = server.port
        server.stop()
        let recorder = Recorder()
        let network = makeNetwork()
        network.observers = [recorder]
        let ended = expectation(description: "end")
        _ = network.webSocket(URL(string: "ws://127.0.0.1:\(port)/ws")!, onEnd: { _ in ended.fulfill() })
        wait(for: [ended], timeout: 10)
        XCTAssertEqual(recorder.events.first, "send GET websocket")
        XCTAssertEqual(recorder.events.count, 2, "\(recorder.events)")
        XCTAssertTrue(recorder.events.last?.hasPrefix("fail ") == true, "\(recorder.events)")
    }
}
