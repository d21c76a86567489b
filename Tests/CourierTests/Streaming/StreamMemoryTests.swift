import Courier
import Foundation
import XCTest

/// A gigabyte streamed through each convention at full loopback speed: every byte arrives, in
/// order, and memory stays flat, because Courier holds at most its buffer's budget of body.
///
/// The bound is 32 MiB on the curl engine (measured: 4–7 MiB). On URLSession it is 48 MiB
/// (measured: 17–29 MiB): FoundationNetworking's own allocations grow the process by about
/// 20 MiB per GiB at full speed even when each chunk is dropped the moment it arrives, and a
/// download to /dev/null with the existing DownloadBody grows it as much (25 MiB at 1 GiB).
final class StreamMemoryTests: XCTestCase {
    private func limit(_ network: Network) -> Int {
        network.engine == .curl ? 32 << 20 : 48 << 20
    }

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
        assertMemoryGrowth(memory.growth, below: limit(network), "\(gigabyteTestSize >> 20) MiB through onData (\(network.engine))")
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
        assertMemoryGrowth(memory.growth, below: limit(network), "\(gigabyteTestSize >> 20) MiB through bytes(for:) (\(network.engine))")
    }
}
