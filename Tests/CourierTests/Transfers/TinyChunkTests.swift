import Courier
import Foundation
import XCTest

/// A reply cut into 100,000 one-byte chunks (HTTP/1.1 chunked encoding: 600 kB on the wire for a
/// 100 kB body) arrives whole and in order, in memory, as a stream and as a file, on both
/// engines. On the URLSession engine each chunk is a callback of FoundationNetworking's, and
/// what Courier does per chunk is what this exercises (issue 40; figures in LinuxNotes.md).
final class TinyChunkTests: XCTestCase {
    private static let count = 100_000

    /// Byte `i` of the body: a pattern that a lost, repeated or reordered chunk breaks.
    private static let body = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) })

    private func makeTinyChunkServer() throws -> TestServer {
        let server = try makeServer()
        var wire = Data()
        wire.reserveCapacity(Self.count * 6 + 5)
        for byte in Self.body {
            wire.append(contentsOf: Array("1\r\n".utf8))
            wire.append(byte)
            wire.append(contentsOf: Array("\r\n".utf8))
        }
        wire.append(contentsOf: Array("0\r\n\r\n".utf8))
        server.route("/tiny") { [wire] _, writer in
            writer.writeHead(status: 200, headers: [("Transfer-Encoding", "chunked")])
            writer.write(wire)
        }
        return server
    }

    func testInMemory() throws {
        let server = try makeTinyChunkServer()
        let result = makeNetwork().scheduleSynchronously(Request<Data>.get(server.url("/tiny")), timeout: 120)
        let received = try result.get()
        XCTAssertEqual(received.count, Self.count)
        XCTAssertTrue(received == Self.body, "the bytes arrived in order, each once")
    }

    func testAsAStream() throws {
        let server = try makeTinyChunkServer()
        var received = Data()
        let result = makeNetwork().streamSynchronously(Request<Data>.get(server.url("/tiny")), timeout: 120,
                                                       onResponse: { _ in }, onData: { received.append($0) })
        XCTAssertEqual(try result.get().statusCode, 200)
        XCTAssertEqual(received.count, Self.count)
        XCTAssertTrue(received == Self.body, "the bytes arrived in order, each once")
    }

    func testAsAFile() throws {
        let server = try makeTinyChunkServer()
        let destination = try makeTemporaryDirectory().appendingPathComponent("tiny.bin")
        let result = makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/tiny")), to: destination, timeout: 120)
        XCTAssertEqual(try result.get(), destination)
        let written = try Data(contentsOf: destination)
        XCTAssertEqual(written.count, Self.count)
        XCTAssertTrue(written == Self.body, "the bytes arrived in order, each once")
    }
}
