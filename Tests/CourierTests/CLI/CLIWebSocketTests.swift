import Courier
import Foundation
import TestSupport
import XCTest

/// `courier ws URL` against Python's websockets on loopback: stdin lines out, messages in, the
/// echo mode, and the exit status of each way a socket ends.
final class CLIWebSocketTests: CLITestCase {
    private func peer() throws -> WebSocketPeer {
        let peer = try WebSocketPeer(.python, in: try makeTemporaryDirectory())
        addTeardownBlock { peer.stop() }
        return peer
    }

    func testEachLineOfStdinIsSentAndEachAnswerPrintedBeforeTheClose() throws {
        let peer = try peer()
        let result = try courier("ws", peer.url("/echo").absoluteString, stdin: Data("one\ntwo\nthree é\n".utf8))
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "one\ntwo\nthree é\n")
    }

    func testEchoSendsEveryMessageBackUnchangedBinaryAsBinary() throws {
        let peer = try peer()
        let result = try courier("ws", "--echo", peer.url("/echo-check").absoluteString)
        // The server closes with 1000 only if both messages came back as they went.
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdout, Data("a\n".utf8) + Data([1, 2]))
    }

    func testTheExitStatusSaysHowItEnded() throws {
        let peer = try peer()
        // The peer's close: a completed closing handshake.
        XCTAssertEqual(try courier("ws", peer.url("/close?code=4001").absoluteString, stdin: Data()).status, 0)
        // A refused upgrade (an HTTP server's 404): as --fail does with an HTTP error.
        let server = try TestServer()
        let refused = try courier("ws", "ws://127.0.0.1:\(server.port)/nothing", stdin: Data())
        XCTAssertEqual(refused.status, 22, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("404"), refused.stderrText)
        // Nobody listening: curl's 7.
        server.stop()
        XCTAssertEqual(try courier("ws", "ws://127.0.0.1:\(server.port)/", stdin: Data()).status, 7)
        // Not a WebSocket URL, and no URL.
        XCTAssertEqual(try courier("ws", "http://127.0.0.1/", stdin: Data()).status, 3)
        XCTAssertEqual(try courier("ws", stdin: Data()).status, 2)
    }
}
