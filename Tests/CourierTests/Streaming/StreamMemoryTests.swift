import Courier
import Foundation
import XCTest

/// A gigabyte streamed through each convention at full loopback speed: every byte arrives, in
/// order, and memory stays flat, because Courier holds at most its buffer's budget of body.
final class StreamMemoryTests: XCTestCase {
    private func request(_ server: TestServer) -> Request<Data> {
        Request<Data>(url: server.url("/gigabyte"), timeout: 600)
    }

    func testAGigabyteThroughOnDataKeepsMemoryFlat() throws {
        let server = try makeServer()
        server.routePattern("/gigabyte", length: gigabyteTestSize, piece: 256 << 10)
        let network = makeNetwork()
        let verifier = PatternVerifier()
        let memory = MemoryPeak()
        let done = expectation(description: "completion")
        let heads = Box<Int>(0)
        network.stream(request(server), onResponse: { response in
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(verifier.count, 0, "the head comes before any data")
            heads.mutate { $0! += 1 }
        }, onData: { chunk in
            verifier.consume(chunk)
            memory.sample()
        }, completion: { result in
            XCTAssertEqual(try? result.get().statusCode, 200, "\(result)")
            done.fulfill()
        })
        wait(for: [done], timeout: 600)
        XCTAssertEqual(heads.value, 1)
        verifier.assertComplete(gigabyteTestSize)
        print("largest chunk: \(verifier.largestChunk)")
        assertMemoryGrowth(memory.growth, below: 32 << 20, "\(gigabyteTestSize >> 20) MiB through onData (\(network.engine))")
    }

    func testAGigabyteThroughBytesForKeepsMemoryFlat() async throws {
        let server = try makeServer()
        server.routePattern("/gigabyte", length: gigabyteTestSize, piece: 256 << 10)
        let network = makeNetwork()
        let verifier = PatternVerifier()
        let memory = MemoryPeak()
        let (response, body) = try await network.bytes(for: request(server))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.headers["Content-Length"], String(gigabyteTestSize))
        for try await chunk in body {
            verifier.consume(chunk)
            memory.sample()
        }
        verifier.assertComplete(gigabyteTestSize)
        assertMemoryGrowth(memory.growth, below: 32 << 20, "\(gigabyteTestSize >> 20) MiB through bytes(for:) (\(network.engine))")
    }
}
