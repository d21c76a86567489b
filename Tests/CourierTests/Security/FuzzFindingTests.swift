import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Replays of the server replies `scripts/fuzz` found to crash Courier (Docs/Security.md,
/// "Fuzzing the curl engine"), each now an error like any other bad reply. Some of them trap
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
}
