import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A reply that stops inside its head — a status line, perhaps part of a header, then the
/// connection closes. FoundationNetworking traps on it (the whole process dies: see
/// Sources/Courier/Courier.docc/LinuxNotes.md), so these run on the curl engine only, the
/// default on Linux, which must report a bad server response instead.
final class CutHeadTests: CLITestCase {
    private let cutHeads = [
        "/status-line-only": "HTTP/1.1 200 OK\r\n",
        "/half-a-header": "HTTP/1.1 200 OK\r\nContent-Ty",
        "/redirect-cut": "HTTP/1.1 301 Moved\r\nLocation: /elsewhere\r\n",
    ]

    private func makeCutServer() throws -> TestServer {
        let server = try makeServer()
        for (path, reply) in cutHeads {
            server.route(path) { _, writer in
                writer.write(Data(reply.utf8))
                writer.closeConnection()
            }
        }
        return server
    }

    func testTheCurlEngineReportsACutHeadAsABadReply() throws {
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "cut.callbacks"), engine: .curl)
        try XCTSkipUnless(network.engine == .curl, "libcurl cannot be loaded here: \(Network.Engine.curlUnavailableReason ?? "")")
        let server = try makeCutServer()
        let folder = try makeTemporaryDirectory()
        for path in cutHeads.keys.sorted() {
            let inMemory = network.scheduleSynchronously(Request<Data>.get(server.url(path)), timeout: 10)
            guard case .invalidResponse(let detail)? = networkError(inMemory) else {
                XCTFail("\(path): expected invalidResponse, got \(inMemory)")
                continue
            }
            XCTAssertTrue(detail.contains("before the end of the response head"), "\(path): \(detail)")
            let download = network.downloadSynchronously(Request<Data>.get(server.url(path)),
                                                         to: folder.appendingPathComponent("file"), timeout: 10)
            guard case .invalidResponse? = networkError(download) else {
                XCTFail("\(path) (download): expected invalidResponse, got \(download)")
                continue
            }
        }
        XCTAssertEqual(fileNames(in: folder), [], "nothing of a reply that never had a head is kept")
    }

    func testTheCommandLineExitsEightInsteadOfDying() throws {
        guard Network.Engine.curlUnavailableReason == nil else { throw XCTSkip("libcurl cannot be loaded here") }
        let server = try makeCutServer()
        // Asked for explicitly: the suite also runs with COURIER_ENGINE=urlsession, which the
        // command would inherit.
        let result = try courier("--engine", "curl", server.url("/status-line-only").absoluteString)
        XCTAssertEqual(result.status, 8, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("not valid HTTP"), result.stderrText)
    }
}
