import Courier
import Foundation
import XCTest

/// Large bodies at full loopback speed: memory stays flat, and cancel works mid-stream.
///
/// URLSession on Linux never waits for a slow consumer; Courier's delegate queue pushes back
/// (BoundedDelegateQueue), which is what keeps these figures flat even with the server, libcurl
/// and a debug-built consumer fighting over two cores.
final class LargeTransferTests: XCTestCase {
    private static let size = 256 << 20

    /// A 256 MB file of pseudo-random bytes, written in chunks (never whole in memory).
    private func makeLargeFile(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("source.bin")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let chunk = randomBytes(1 << 20, seed: 99)
        for index in 0..<(Self.size >> 20) {
            var block = chunk
            block[0] = UInt8(truncatingIfNeeded: index)  // no two megabytes alike
            try handle.write(contentsOf: block)
        }
        return url
    }

    private func assertFilesEqual(_ lhs: URL, _ rhs: URL, length: Int? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let left = try FileHandle(forReadingFrom: lhs)
        let right = try FileHandle(forReadingFrom: rhs)
        defer { try? left.close(); try? right.close() }
        var compared = 0
        while length.map({ compared < $0 }) ?? true {
            let want = min(4 << 20, (length ?? Int.max) - compared)
            let a = try left.read(upToCount: want) ?? Data()
            let b = try right.read(upToCount: want) ?? Data()
            guard a == b else { return XCTFail("files differ after byte \(compared)", file: file, line: line) }
            if a.isEmpty { break }
            compared += a.count
        }
    }

    func testA256MegabyteDownloadKeepsMemoryFlat() throws {
        let folder = try makeTemporaryDirectory()
        let source = try makeLargeFile(in: folder)
        let server = try makeServer()
        server.route("/large") { request, writer in writer.serveFile(at: source, etag: "\"large\"", request: request) }
        let destination = folder.appendingPathComponent("copy.bin")
        let network = makeNetwork()

        let baseline = residentMemoryBytes()
        let peak = Box<Int>(baseline)
        let result = network.downloadSynchronously(Request<Data>(url: server.url("/large"), timeout: 600), to: destination, timeout: 600) { _ in
            let now = residentMemoryBytes()
            peak.mutate { $0 = max($0!, now) }
        }
        XCTAssertNoThrow(try result.get())
        assertMemoryGrowth((peak.value ?? 0) - baseline, below: 64 << 20, "256 MB download, at peak")
        try assertFilesEqual(source, destination)
        XCTAssertEqual(fileNames(in: folder), ["copy.bin", "source.bin"])
    }

    func testCancelMidStreamIsImmediateAndKeepsTheBytes() throws {
        let folder = try makeTemporaryDirectory()
        let source = try makeLargeFile(in: folder)
        let server = try makeServer()
        let serverFinished = Gate()
        server.route("/large") { request, writer in
            writer.serveFile(at: source, etag: "\"large\"", request: request)
            serverFinished.open()
        }
        let destination = folder.appendingPathComponent("copy.bin")
        let network = makeNetwork()
        let baseline = residentMemoryBytes()
        let task = Box<NetworkTask>()
        let cancelled = expectation(description: "cancelled")
        task.value = network.download(Request<Data>(url: server.url("/large"), timeout: 600), to: destination) { progress in
            if progress.completedBytes >= 100 << 20 { task.value?.cancel() }
        } completion: { result in
            guard case .failure(NetworkError.cancelled) = result else { return XCTFail("\(result)") }
            cancelled.fulfill()
        }
        wait(for: [cancelled], timeout: 120)
        let partial = URL(fileURLWithPath: destination.path + ".partial")
        let kept = (try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.intValue ?? 0
        XCTAssertGreaterThanOrEqual(kept, 100 << 20)
        XCTAssertLessThan(kept, Self.size)
        try assertFilesEqual(source, partial, length: kept)
        // Late bytes were dropped, not buffered: memory did not fill with the rest of the body.
        assertMemoryGrowth(residentMemoryBytes() - baseline, below: 64 << 20, "cancel at \(kept >> 20) MB")
        serverFinished.wait(timeout: 60)

        // And the next call finishes the file from where the cancel left it.
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>(url: server.url("/large"), timeout: 600), to: destination, timeout: 600).get())
        try assertFilesEqual(source, destination)
        XCTAssertEqual(server.receivedRequests.last?.header("Range"), "bytes=\(kept)-")
    }
}
