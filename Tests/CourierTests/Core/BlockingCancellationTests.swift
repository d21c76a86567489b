import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// Blocking calls cancelled from another thread, or by Ctrl-C, through a `CancellationToken`.
final class BlockingCancellationTests: XCTestCase {
    /// A route that answers a head and 100,000 bytes of 1,000,000, then holds the rest until the
    /// test ends; `arrived` is signalled once a request is in.
    private func makeHoldingServer(arrived: DispatchSemaphore) throws -> TestServer {
        let server = try makeServer()
        let release = Gate()
        addTeardownBlock { release.open() }
        let content = randomBytes(1_000_000, seed: 12)
        server.route("/held") { _, writer in
            writer.writeHead(status: 200, headers: [("ETag", "\"held\""), ("Content-Length", "\(content.count)")])
            writer.write(content.prefix(100_000))
            arrived.signal()
            release.wait(timeout: 60)
        }
        return server
    }

    /// Cancels `token` once the server has a request in.
    private func cancel(_ token: CancellationToken, after arrived: DispatchSemaphore, count: Int = 1) {
        DispatchQueue.global().async {
            for _ in 0..<count { _ = arrived.wait(timeout: .now() + 30) }
            token.cancel()
        }
    }

    private func assertCancelled<T>(_ result: Result<T, any Error>, file: StaticString = #filePath, line: UInt = #line) {
        guard case .failure(NetworkError.cancelled) = result else {
            return XCTFail("expected cancelled, got \(result)", file: file, line: line)
        }
    }

    func testABlockingCallIsCancelledFromAnotherThread() throws {
        let arrived = DispatchSemaphore(value: 0)
        let server = try makeHoldingServer(arrived: arrived)
        let token = CancellationToken()
        cancel(token, after: arrived)
        let result = makeNetwork().scheduleSynchronously(Request<Data>.get(server.url("/held")), timeout: 60, cancellation: token)
        assertCancelled(result)
        XCTAssertTrue(token.isCancelled)
        XCTAssertEqual(server.receivedRequests.count, 1)
    }

    func testATokenCancelledBeforehandSendsNothing() throws {
        let server = try makeServer().withStandardRoutes()
        let token = CancellationToken()
        token.cancel()
        let network = makeNetwork()
        assertCancelled(network.scheduleSynchronously(Request<Data>.get(server.url("/hello")), cancellation: token))
        assertCancelled(Request<Data>.get(server.url("/hello")).scheduleSynchronously(on: network, cancellation: token))
        assertCancelled(network.streamSynchronously(Request<Data>.get(server.url("/hello")), cancellation: token, onData: { _ in }))
        XCTAssertEqual(server.receivedRequests.count, 0)
    }

    func testABlockingDownloadIsCancelledAndKeepsItsPartialFile() throws {
        let arrived = DispatchSemaphore(value: 0)
        let server = try makeHoldingServer(arrived: arrived)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("held.bin")
        let token = CancellationToken()
        // Once bytes are on disk (the engine may deliver the head later than the server sent it).
        let writing = DispatchSemaphore(value: 0)
        let signalled = Box<Bool>(false)
        cancel(token, after: writing)
        let result = makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/held")), to: destination, timeout: 60,
                                                         cancellation: token) { progress in
            if progress.completedBytes > 0, signalled.value == false {
                signalled.value = true
                writing.signal()
            }
        }
        assertCancelled(result)
        XCTAssertEqual(arrived.wait(timeout: .now()), .success)
        XCTAssertEqual(fileNames(in: folder), ["held.bin.partial", "held.bin.partial.json"])
    }

    func testABlockingStreamIsCancelledFromAnotherThread() throws {
        let arrived = DispatchSemaphore(value: 0)
        let server = try makeHoldingServer(arrived: arrived)
        let token = CancellationToken()
        cancel(token, after: arrived)
        var received = 0
        let result = makeNetwork().streamSynchronously(Request<Data>.get(server.url("/held")), timeout: 60, cancellation: token) { chunk in
            received += chunk.count
        }
        assertCancelled(result)
        XCTAssertLessThanOrEqual(received, 100_000)
    }

    func testOneTokenCancelsEveryCallHoldingIt() throws {
        let arrived = DispatchSemaphore(value: 0)
        let server = try makeHoldingServer(arrived: arrived)
        let token = CancellationToken()
        let network = makeNetwork()
        let results = Box<[String]>([])
        let done = DispatchGroup()
        for _ in 0..<3 {
            done.enter()
            Thread {
                let result = network.scheduleSynchronously(Request<Data>.get(server.url("/held")), timeout: 60, cancellation: token)
                results.mutate { $0?.append(String(describing: result)) }
                done.leave()
            }.start()
        }
        cancel(token, after: arrived, count: 3)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(results.value?.count, 3)
        XCTAssertTrue(results.value?.allSatisfy { $0.contains("cancelled") } ?? false, "\(results.value ?? [])")
    }

    func testTheFirstInterruptCancelsTheInterruptTokenAndTheSecondIsTheDefault() throws {
        let arrived = DispatchSemaphore(value: 0)
        let server = try makeHoldingServer(arrived: arrived)
        let outcome = Box<String>()
        let done = DispatchSemaphore(value: 0)
        let network = makeNetwork()
        Thread {
            let result = network.scheduleSynchronously(Request<Data>.get(server.url("/held")), timeout: 60, cancellation: .interrupt)
            outcome.value = String(describing: result)
            done.signal()
        }.start()
        XCTAssertEqual(arrived.wait(timeout: .now() + 30), .success)
        // This thread interrupts itself: the handler runs here, and the call on the other thread ends.
        pthread_kill(pthread_self(), SIGINT)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(outcome.value?.contains("cancelled") ?? false, outcome.value ?? "no result")
        XCTAssertTrue(CancellationToken.interrupt.isCancelled)
        var current = sigaction()
        sigaction(SIGINT, nil, &current)
        XCTAssertNil(unsafeBitCast(current.__sigaction_handler.sa_handler, to: Optional<UnsafeRawPointer>.self),
                     "after the first interrupt, SIGINT is back to its default action")
    }
}
