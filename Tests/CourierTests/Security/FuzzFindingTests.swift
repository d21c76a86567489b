import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Replays of the server replies `scripts/fuzz` found to crash Courier
/// (Sources/Courier/Courier.docc/Security.md, "Fuzzing the curl engine"), each now an error like
/// any other bad reply. Some of them trap
/// inside FoundationNetworking itself, where Courier cannot help it: those run on the curl engine only.
final class FuzzFindingTests: XCTestCase {
    /// A `.partial` file of `bytes` and its sidecar, as an earlier attempt at `url` leaves them.
    private func plantPartialFile(_ bytes: String, for url: URL, at destination: URL) throws {
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        try Data(#"{"bytes":\#(bytes.utf8.count),"url":"\#(url.absoluteString)","validator":"\"v\""}"#.utf8)
            .write(to: URL(fileURLWithPath: destination.path + ".partial.json"))
    }

    /// Found by the reply fuzzer: a `206` without a total in its `Content-Range` and a
    /// `Content-Length` near `Int64.max` made the resumed file's size overflow, a trap.
    func testAResumeAnnouncingALengthPastInt64IsAnErrorNotATrap() throws {
        let server = try makeServer()
        server.route("/huge") { _, writer in
            writer.writeHead(status: 206, headers: [("Content-Range", "bytes 5-9/*"), ("Content-Length", "\(Int64.max)"), ("ETag", "\"v\"")])
            writer.write(Data("world".utf8))
            writer.closeConnection()
        }
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("huge.bin")
        try plantPartialFile("hello", for: server.url("/huge"), at: destination)

        let network = makeNetwork()
        try XCTSkipIf(network.engine != .curl, "FoundationNetworking traps on this reply in its own header callback")
        let outcome = network.downloadSynchronously(Request<Data>.get(server.url("/huge")), to: destination, timeout: 30)
        guard case .incompleteBody? = networkError(outcome) else {
            return XCTFail("expected incompleteBody, got \(outcome)")
        }
        XCTAssertEqual(server.receivedRequests.first?.header("Range"), "bytes=5-")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    /// Found by the reply fuzzer (AddressSanitizer: heap-use-after-free in libcurl 7.88.1): on an
    /// easy handle that had carried an earlier transfer, a reply whose first header line is folded
    /// (starts with a space) was appended to that transfer's freed last header — it "succeeded",
    /// or crashed. From libcurl 7.84.0 to 8.0.1 each transfer now gets a new handle (older ones
    /// have no such pointer, and reuse theirs, as 8.1.0 and later do). The line is then
    /// refused — by libcurl 7.88 ("A libcurl function was given a bad argument", curl's exit
    /// code 43: `transport`), as on FoundationNetworking, which makes a handle per task; by
    /// Courier's head parser where libcurl hands it over (7.74: `invalidResponse`) — or, from 8.x
    /// on, unfolded by libcurl onto the status line, and the body delivered whole.
    func testAFoldedFirstHeaderLineAfterAnEarlierRequestIsAnErrorNotAUseAfterFree() throws {
        let server = try makeServer()
        server.route("/plain") { _, writer in
            writer.respond(status: 200, headers: ["X-Earlier": "1"], text: "ok")
        }
        server.route("/folded") { _, writer in
            writer.write(Data("HTTP/1.1 200 OK\r\n X-Folded: 1\r\nContent-Length: 2\r\n\r\nok".utf8))
            writer.closeConnection()
        }
        let network = makeNetwork(limit: 1)
        try skipUnderTheVersionShim(network)
        for _ in 0..<3 {
            XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>.get(server.url("/plain")), timeout: 30).get())
            let outcome = network.scheduleSynchronously(Request<Data>.get(server.url("/folded")), timeout: 30)
            assertRefusedOrIntact(outcome)
        }
    }

    /// scripts/libcurl-matrix's 7.68 run preloads scripts/libcurl-shim.c, which makes a newer
    /// libcurl (Debian 12's 7.88.1) report 7.68.0. The engine then reuses easy handles, as on a
    /// real 7.68.0, which keeps no pointer to leave freed; but the code underneath is 7.88.1's,
    /// which does: the use-after-free would be the shim's, not any real libcurl's.
    /// (The real 7.74.0 and 8.14.1 runs, and the system's 7.88.1, keep these tests.)
    private func skipUnderTheVersionShim(_ network: Network) throws {
        let preloaded = ProcessInfo.processInfo.environment["LD_PRELOAD"] ?? ""
        try XCTSkipIf(network.engine == .curl && preloaded.contains("libcurl-shim"),
                      "scripts/libcurl-shim.c makes libcurl 7.88.1 report 7.68.0: handles are reused as 7.68.0 allows, over 7.88.1's code")
    }

    /// The folded line refused (by libcurl: `transport`; by Courier: `invalidResponse`), or the body, whole.
    private func assertRefusedOrIntact(_ outcome: Result<Data, any Error>, file: StaticString = #filePath, line: UInt = #line) {
        if case let .success(body) = outcome {
            XCTAssertEqual(String(decoding: body, as: UTF8.self), "ok", file: file, line: line)
            return
        }
        switch networkError(outcome, file: file, line: line) {
        case .transport?, .invalidResponse?: return
        default: XCTFail("expected a refusal or the body, got \(outcome)", file: file, line: line)
        }
    }

    /// The same reply after a redirect, which the curl engine follows on a handle of its own too.
    /// (FoundationNetworking follows redirects on the task's handle and crashes here: URLSession
    /// engine left out.)
    func testAFoldedFirstHeaderLineAfterARedirectIsAnErrorNotAUseAfterFree() throws {
        let server = try makeServer()
        server.route("/redirect") { _, writer in
            writer.respond(status: 302, headers: ["Location": "/folded", "X-Earlier": "1"], text: "")
        }
        server.route("/folded") { _, writer in
            writer.write(Data("HTTP/1.1 200 OK\r\n X-Folded: 1\r\nContent-Length: 2\r\n\r\nok".utf8))
            writer.closeConnection()
        }
        let network = makeNetwork(limit: 1)
        try XCTSkipIf(network.engine != .curl, "FoundationNetworking crashes on this reply after a redirect")
        try skipUnderTheVersionShim(network)
        for _ in 0..<3 {
            let outcome = network.scheduleSynchronously(Request<Data>.get(server.url("/redirect")), timeout: 30)
            assertRefusedOrIntact(outcome)
        }
        XCTAssertEqual(server.receivedRequests.map(\.path), Array(repeating: ["/redirect", "/folded"], count: 3).flatMap { $0 })
    }

    /// Found by CI's fuzzing (issue 18): non-ASCII bytes inside a date a server sends. Handed to
    /// Foundation's date formatter (through `HTTPCookie`'s header parsing, or `Retry-After`'s), they
    /// made it trap (`Incorrect range CFRange`). Courier reads both dates itself now.
    private static let poisonedDate = Data("Sun, 06".utf8) + Data([0xD6, 0xB1, 0x90, 0x89]) + Data(" 08:49:37 GMT".utf8)

    func testASetCookieWithNonASCIIBytesInItsDateIsACookieNotATrap() throws {
        let server = try makeServer()
        server.route("/set") { _, writer in
            writer.write(Data("HTTP/1.1 200 OK\r\nSet-Cookie: a=b; Expires=".utf8) + Self.poisonedDate
                + Data("\r\nContent-Length: 2\r\n\r\nok".utf8))
        }
        server.route("/show") { request, writer in writer.respond(status: 200, text: request.header("Cookie") ?? "none") }
        let network = makeNetwork()
        let outcome = network.scheduleSynchronously(Request<Data>.get(server.url("/set")), timeout: 30)
        switch network.engine {
        case .curl:
            XCTAssertEqual(try outcome.get(), Data("ok".utf8))
            // The unreadable date is ignored: the cookie lives for the session.
            XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/show")), timeout: 30).get(), Data("a=b".utf8))
        default:
            // FoundationNetworking refuses a Set-Cookie that is not UTF-8 (measured: a transport
            // error) before its own cookie parser, which would trap, sees it.
            guard case .transport? = networkError(outcome) else { return XCTFail("expected a transport error, got \(outcome)") }
        }
    }

    func testARetryAfterWithNonASCIIBytesIsAnOrdinaryBackoffNotATrap() throws {
        let server = try makeServer()
        let calls = Locked(0)
        server.route("/busy") { _, writer in
            if calls.withLock({ count -> Int in count += 1; return count }) == 1 {
                writer.write(Data("HTTP/1.1 429 Too Many Requests\r\nRetry-After: ".utf8) + Self.poisonedDate
                    + Data("\r\nContent-Length: 0\r\n\r\n".utf8))
            } else {
                writer.respond(status: 200, text: "done")
            }
        }
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
        let outcome = network.scheduleSynchronously(Request<Data>.get(server.url("/busy")), timeout: 30)
        // Both engines: FoundationNetworking lets this header through, so Courier's own reading is what holds.
        XCTAssertEqual(try outcome.get(), Data("done".utf8), "an unreadable Retry-After is an ordinary backoff")
        XCTAssertEqual(calls.withLock { $0 }, 2)
    }

    /// The same trap with valid UTF-8 (measured on the URLSession engine: FoundationNetworking
    /// handed each `Set-Cookie` line to its own cookie parser, whose date formatter ended the
    /// process). Courier reads cookies itself on both engines now.
    func testSetCookieDatesThatTrapFoundationAreReadByCourierOnBothEngines() throws {
        let server = try makeServer()
        let dates = ["Sun, 06\u{05B1}\u{0309}\u{00CF} 08:49:37 GMT", "Sun, 06 Nøv 1994 08:49:37 GMT",
                     "\u{0301}\u{0301}, 06 Nov 2094 08:49:37 GMT"]
        for (index, date) in dates.enumerated() {
            server.route("/set\(index)") { _, writer in
                writer.write(Data("HTTP/1.1 200 OK\r\nSet-Cookie: c\(index)=v; Expires=\(date)\r\nContent-Length: 2\r\n\r\nok".utf8))
            }
        }
        server.route("/show") { request, writer in writer.respond(status: 200, text: request.header("Cookie") ?? "none") }
        let network = makeNetwork()
        for index in dates.indices {
            XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/set\(index)")), timeout: 30).get(), Data("ok".utf8))
        }
        let sent = try network.scheduleSynchronously(Request<Data>.get(server.url("/show")), timeout: 30).get()
        XCTAssertEqual(String(decoding: sent, as: UTF8.self).components(separatedBy: "; ").sorted(), ["c0=v", "c1=v", "c2=v"])
    }
}
