import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Bodies a server really compresses (`Content-Encoding: gzip`): in memory both engines hand
/// them on decoded; a download, which asks for `identity`, stores one as sent on the curl engine
/// (as curl without `--compressed`) and decoded on URLSession (which cannot help decoding); a
/// download of one is never resumed by byte count.
final class CompressedResponseTests: XCTestCase {
    /// `path` always answers with the gzip fixture, whatever the request's `Accept-Encoding`
    /// (a server that ignores `identity`); the `Content-Length` counts the compressed bytes.
    private func serveCompressedFixture(at path: String, on server: TestServer) {
        server.route(path) { _, writer in
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain; charset=utf-8",
                                                  "ETag": "\"gz\"", "Last-Modified": ResponseWriter.lastModified],
                           body: Gzip.fixture)
        }
    }

    func testAnInMemoryBodyArrivesDecoded() throws {
        let server = try makeServer()
        serveCompressedFixture(at: "/fixture.txt", on: server)
        let network = makeNetwork()
        let progress = Box<[TransferProgress]>([])
        let done = expectation(description: "response")
        let outcome = Box<Result<String, any Error>>()
        network.schedule(Request<Data>.get(server.url("/fixture.txt")).string()) { event in
            progress.mutate { $0?.append(event) }
        } completion: { result in
            outcome.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(try XCTUnwrap(outcome.value).get(), Gzip.fixtureText, "engine: \(network.engine)")
        let events = progress.value ?? []
        XCTAssertEqual(events.last?.completedBytes, Int64(Gzip.fixtureText.utf8.count), "progress counts the decoded bytes")
        // The Content-Length counts compressed bytes: it is no total for the decoded ones.
        XCTAssertTrue(events.allSatisfy { $0.totalBytes == nil }, "\(events)")
    }

    func testADownloadFromAServerThatCompressesAnywayIsStoredAsSentOnCurlAndDecodedOnURLSession() throws {
        let server = try makeServer()
        serveCompressedFixture(at: "/fixture.txt", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("fixture.txt")
        let network = makeNetwork()
        let result = network.downloadSynchronously(Request<Data>.get(server.url("/fixture.txt")), to: destination, timeout: 30)
        XCTAssertEqual(try result.get(), destination.standardizedFileURL)
        if network.engine == .curl {
            XCTAssertEqual(try Data(contentsOf: destination), Gzip.fixture)
        } else {
            XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), Gzip.fixtureText)
        }
        XCTAssertEqual(fileNames(in: folder), ["fixture.txt"])
        XCTAssertEqual(server.receivedRequests.last?.header("Accept-Encoding"), "identity", "a download asks for the bytes as stored")
    }

    func testACompressedDownloadIsNeverResumed() throws {
        let server = try makeServer()
        let content = randomBytes(2_000_000, seed: 21)
        let compressed = Gzip.stored(content)
        // The first response stops after 1 MB of compressed bytes (the client cancels there);
        // the next ones are whole. None honours a Range.
        let release = Gate()
        addTeardownBlock { release.open() }
        let count = Box<Int>(0)
        server.route("/big") { _, writer in
            count.mutate { $0! += 1 }
            let fields = [("Content-Encoding", "gzip"), ("Content-Length", String(compressed.count)), ("ETag", "\"big\"")]
            writer.writeHead(status: 200, headers: fields)
            if count.value == 1 {
                writer.write(compressed.prefix(1_000_000))
                release.wait(timeout: 30)
                writer.closeConnection()
            } else {
                writer.write(compressed)
            }
        }
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("big.bin")
        let network = makeNetwork()
        let done = expectation(description: "cancelled")
        let task = Box<NetworkTask>()
        let outcome = Box<Result<URL, any Error>>()
        task.value = network.download(Request<Data>.get(server.url("/big")), to: destination) { progress in
            if progress.completedBytes >= 500_000 { task.value?.cancel() }
        } completion: { result in
            outcome.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        guard case .cancelled? = networkError(outcome.value) else { return XCTFail("expected cancelled") }
        // A content-coded body is not resumed (decoded bytes are not the ones a Range counts, and
        // coded ones might be followed by another coding): nothing is kept.
        XCTAssertEqual(fileNames(in: folder), [])

        XCTAssertEqual(try network.downloadSynchronously(Request<Data>.get(server.url("/big")), to: destination, timeout: 30).get(),
                       destination.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: destination), network.engine == .curl ? compressed : content)
        XCTAssertNil(server.receivedRequests.last?.header("Range"), "the second call started over")
        XCTAssertEqual(fileNames(in: folder), ["big.bin"])
    }

    func testAServerThatHonoursIdentityStillResumesWithARange() throws {
        let server = try makeServer()
        let content = randomBytes(1_000_000, seed: 22)
        let release = Gate()
        addTeardownBlock { release.open() }
        let stops = Box<[Int]>([300_000])
        // Compresses only for a client that accepts gzip; otherwise serves the stored bytes,
        // with ranges, the first response stopping at 300,000 bytes.
        server.route("/negotiated") { request, writer in
            if request.header("Accept-Encoding")?.contains("gzip") == true {
                return writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "ETag": "\"n\""], body: Gzip.stored(content))
            }
            var stop: Int?
            stops.mutate { if $0?.isEmpty == false { stop = $0?.removeFirst() } }
            writer.serve(content, etag: "\"n\"", request: request, stop: stop.map { ($0, { release.wait(timeout: 30) }) })
        }
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("n.bin")
        let network = makeNetwork()
        let done = expectation(description: "cancelled")
        let task = Box<NetworkTask>()
        task.value = network.download(Request<Data>.get(server.url("/negotiated")), to: destination) { progress in
            if progress.completedBytes >= 300_000 { task.value?.cancel() }
        } completion: { _ in done.fulfill() }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(fileNames(in: folder), ["n.bin.partial", "n.bin.partial.json"])

        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/negotiated")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(server.receivedRequests.last?.header("Range"), "bytes=300000-")
        XCTAssertEqual(server.receivedRequests.map { $0.header("Accept-Encoding") }, ["identity", "identity"])
    }
}
