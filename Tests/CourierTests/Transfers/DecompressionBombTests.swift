import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A gzip bomb — 1 MB on the wire, 1 GiB of zeros once inflated — sent whatever was asked for.
/// A body Courier decodes stops at ``Network/decompressionLimit``; a body nobody asked to decode
/// (a download) is stored as it arrived on the curl engine, and within the limit on URLSession,
/// which decodes whatever was asked.
final class DecompressionBombTests: XCTestCase {
    private static let decodedSize = 1 << 30
    private static let bomb = Gzip.bomb(decodedSize: decodedSize)

    /// `path` answers with the bomb, `Content-Encoding: gzip`, whatever `Accept-Encoding` says;
    /// framed by `Content-Length` (the compressed size), or chunked.
    private func routeBomb(_ path: String, chunked: Bool = false, on server: TestServer) {
        server.route(path) { _, writer in
            guard chunked else {
                return writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "application/octet-stream",
                                                             "ETag": "\"bomb\""], body: Self.bomb)
            }
            writer.writeHead(status: 200, headers: [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")])
            var offset = 0
            while offset < Self.bomb.count, !writer.peerHasGone {
                let count = min(16 << 10, Self.bomb.count - offset)
                writer.write(Data(String(count, radix: 16).utf8) + Data("\r\n".utf8) + Self.bomb[offset..<(offset + count)] + Data("\r\n".utf8))
                offset += count
            }
            writer.write(Data("0\r\n\r\n".utf8))
        }
    }

    /// The ratio's limit, checked for what it says and for how much was decoded before it stopped.
    @discardableResult
    private func assertRatioLimit<T>(_ result: Result<T, any Error>?, on network: Network,
                                     file: StaticString = #filePath, line: UInt = #line) -> LimitExceeded? {
        guard case let .limitExceeded(exceeded)? = networkError(result, file: file, line: line) else {
            XCTFail("expected limitExceeded, got \(String(describing: result))", file: file, line: line)
            return nil
        }
        XCTAssertEqual(exceeded.kind, .decompressionRatio, file: file, line: line)
        let encoded = try? XCTUnwrap(exceeded.encodedBytes, file: file, line: line)
        XCTAssertLessThanOrEqual(encoded ?? .max, Int64(Self.bomb.count), file: file, line: line)
        // Stopped at the first chunk past what the limit allows: never near the gigabyte.
        XCTAssertLessThanOrEqual(exceeded.limit, 100 * Int64(Self.bomb.count), file: file, line: line)
        XCTAssertLessThanOrEqual(exceeded.received, exceeded.limit + (1 << 20), file: file, line: line)
        if network.engine == .curl {
            // libcurl counts the encoded bytes as they come: the floor (10 MiB) is what a bomb gets.
            XCTAssertLessThanOrEqual(exceeded.received, (10 << 20) + (1 << 20), file: file, line: line)
        }
        print("a gzip bomb stopped after \(exceeded.received >> 20) MiB decoded from \((encoded ?? 0) >> 10) KiB (\(network.engine))")
        return exceeded
    }

    func testAnInMemoryBombStopsAtTheRatio() throws {
        let server = try makeServer()
        routeBomb("/bomb", on: server)
        let network = makeNetwork()
        network.maximumResponseSize = 4 << 30   // so that the ratio, not the size, is what stops it
        assertRatioLimit(result(of: Request<Data>.get(server.url("/bomb")), on: network, timeout: 60), on: network)
        XCTAssertEqual(server.requestCount, 1, "not retried")
    }

    func testAStreamedBombStopsAtTheRatio() async throws {
        let server = try makeServer()
        routeBomb("/bomb", on: server)
        let network = makeNetwork()
        let (_, body) = try await network.bytes(for: Request<Data>(url: server.url("/bomb"), timeout: 60))
        var received = 0
        do {
            for try await chunk in body { received += chunk.count }
            XCTFail("the bomb was streamed whole: \(received) bytes")
        } catch {
            assertRatioLimit(Result<Data, any Error>.failure(error), on: network)
            XCTAssertLessThan(received, 200 << 20)
        }
    }

    /// Chunked, there is no `Content-Length`: the curl engine still counts the encoded bytes;
    /// URLSession counts nothing on Linux, so only the in-memory size limit stops it there.
    func testAChunkedBombStopsAtTheRatioOnTheCurlEngineAndAtTheSizeLimitOnURLSession() throws {
        let server = try makeServer()
        routeBomb("/chunked-bomb", chunked: true, on: server)
        let network = makeNetwork()
        let outcome = result(of: Request<Data>.get(server.url("/chunked-bomb")), on: network, timeout: 60)
        if network.engine == .curl {
            assertRatioLimit(outcome, on: network)
        } else {
            guard case .responseTooLarge(100 << 20)? = networkError(outcome) else {
                return XCTFail("expected responseTooLarge, got \(String(describing: outcome))")
            }
        }
    }

    func testADownloadStoresTheBombAsReceivedOnCurlAndStopsItOnURLSession() throws {
        let server = try makeServer()
        routeBomb("/bomb.bin", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("bomb.bin")
        let network = makeNetwork()
        let outcome = network.downloadSynchronously(Request<Data>.get(server.url("/bomb.bin")), to: destination, timeout: 60)
        XCTAssertEqual(server.receivedRequests.last?.header("Accept-Encoding"), "identity")
        if network.engine == .curl {
            XCTAssertEqual(try outcome.get(), destination.standardizedFileURL)
            // The bytes as sent, as curl stores them without --compressed.
            XCTAssertEqual(try Data(contentsOf: destination), Self.bomb)
            XCTAssertEqual(fileNames(in: folder), ["bomb.bin"])
        } else {
            // URLSession decodes whatever was asked; the limit holds, and the decoded partial file
            // cannot be resumed, so nothing is kept.
            assertRatioLimit(outcome, on: network)
            XCTAssertEqual(fileNames(in: folder), [])
        }
    }

    func testALimitThatAllowsTheRatioLetsTheBodyThrough() throws {
        let server = try makeServer()
        let size = 30 << 20
        let small = Gzip.bomb(decodedSize: size)
        server.route("/dense") { _, writer in
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip"], body: small)
        }
        let network = makeNetwork()
        let refused = result(of: Request<Data>.get(server.url("/dense")), on: network, timeout: 60)
        guard case .limitExceeded? = networkError(refused) else { return XCTFail("\(String(describing: refused))") }
        network.decompressionLimit = DecompressionLimit(ratio: 2_000)
        let body = try XCTUnwrap(result(of: Request<Data>.get(server.url("/dense")), on: network, timeout: 60)).get()
        XCTAssertEqual(body.count, size)
        XCTAssertEqual(body, Data(count: size))
        network.decompressionLimit = .none
        XCTAssertEqual(try XCTUnwrap(result(of: Request<Data>.get(server.url("/dense")), on: network, timeout: 60)).get().count, size)
    }

    func testOrdinaryCompressedBodiesAreUntouched() throws {
        let server = try makeServer()
        server.route("/fixture") { _, writer in
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip"], body: Gzip.fixture)
        }
        let network = makeNetwork()
        network.decompressionLimit = DecompressionLimit(ratio: 20, minimumSize: 0)   // the fixture is 18.6 times
        let text = try XCTUnwrap(result(of: Request<Data>.get(server.url("/fixture")).string(), on: network)).get()
        XCTAssertEqual(text, Gzip.fixtureText)
        network.decompressionLimit = DecompressionLimit(ratio: 10, minimumSize: 0)
        guard case .limitExceeded? = networkError(result(of: Request<Data>.get(server.url("/fixture")), on: network)) else {
            return XCTFail("a ratio of 10 refuses a body 18.6 times its size")
        }
    }
}
