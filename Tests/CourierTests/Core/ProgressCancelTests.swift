import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A progress handler cancels its own transfer (`TransferProgress.cancelTransfer()`), in every
/// convention: no `NetworkTask` needed, none of the races of capturing one.
final class ProgressCancelTests: XCTestCase {
    private let size = 2_000_000

    /// Sends 1,000,000 of `size` bytes, then holds the rest until the test ends: only a cancel
    /// can end such a transfer.
    private func makeStallingServer() throws -> TestServer {
        let server = try makeServer()
        let release = Gate()
        addTeardownBlock { release.open() }
        let content = randomBytes(size, seed: 9)
        server.route("/big") { _, writer in
            writer.writeHead(status: 200, headers: [("ETag", "\"big\""), ("Content-Length", "\(content.count)")])
            writer.write(content.prefix(1_000_000))
            release.wait(timeout: 60)
        }
        return server
    }

    /// A handler that cancels once 40% has arrived, and counts how many events came after.
    private final class CancelAtFortyPercent: @unchecked Sendable {
        // The lock guards `cancelled`; handlers run on Courier's queues.
        private let lock = NSLock()
        private var cancelled = false
        func handle(_ progress: TransferProgress) {
            guard (progress.fractionCompleted ?? 0) >= 0.4 else { return }
            let first = lock.withLock { () -> Bool in
                defer { cancelled = true }
                return !cancelled
            }
            if first { progress.cancelTransfer() }
        }
        var didCancel: Bool { lock.withLock { cancelled } }
    }

    private func assertCancelled<T>(_ result: Result<T, any Error>?, file: StaticString = #filePath, line: UInt = #line) {
        guard case .cancelled? = networkError(result, file: file, line: line) else {
            return XCTFail("expected cancelled, got \(String(describing: result))", file: file, line: line)
        }
    }

    func testACallbackRequestIsCancelledFromItsProgressHandlerExactlyOnce() throws {
        let server = try makeStallingServer()
        let canceller = CancelAtFortyPercent()
        let done = expectation(description: "completion")
        let outcome = Box<Result<Data, any Error>>()
        let completions = Box<Int>(0)
        makeNetwork().schedule(Request<Data>.get(server.url("/big")), callbackQueue: .global()) { canceller.handle($0) } completion: { result in
            completions.mutate { $0! += 1 }
            outcome.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertTrue(canceller.didCancel)
        assertCancelled(outcome.value)
        XCTAssertEqual(completions.value, 1)
    }

    func testABlockingCallIsCancelledFromItsProgressHandler() throws {
        let server = try makeStallingServer()
        let canceller = CancelAtFortyPercent()
        let result = makeNetwork().scheduleSynchronously(Request<Data>.get(server.url("/big")), timeout: 60) { canceller.handle($0) }
        XCTAssertTrue(canceller.didCancel)
        assertCancelled(result)
    }

    func testAnAsyncCallIsCancelledFromItsProgressHandler() async throws {
        let server = try makeStallingServer()
        let canceller = CancelAtFortyPercent()
        do {
            _ = try await makeNetwork().response(for: Request<Data>.get(server.url("/big"))) { canceller.handle($0) }
            XCTFail("expected an error")
        } catch NetworkError.cancelled {
            XCTAssertTrue(canceller.didCancel)
        }
    }

    func testABlockingDownloadCancelledFromItsProgressHandlerKeepsItsPartialFile() throws {
        let server = try makeStallingServer()
        let canceller = CancelAtFortyPercent()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("big.bin")
        let result = makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/big")), to: destination, timeout: 60) {
            canceller.handle($0)
        }
        assertCancelled(result)
        let partial = try Data(contentsOf: URL(fileURLWithPath: destination.path + ".partial"))
        XCTAssertGreaterThanOrEqual(partial.count, size * 4 / 10, "every byte received before the cancel is kept")
        XCTAssertEqual(partial, randomBytes(size, seed: 9).prefix(partial.count))
    }

    func testAProgressValueMadeByHandCancelsNothingAndComparesByItsCounts() {
        let made = TransferProgress(completedBytes: 5, totalBytes: 10)
        made.cancelTransfer()
        XCTAssertEqual(made, TransferProgress(completedBytes: 5, totalBytes: 10))
        XCTAssertEqual(Set([made, TransferProgress(completedBytes: 5, totalBytes: 10)]).count, 1)
    }
}
