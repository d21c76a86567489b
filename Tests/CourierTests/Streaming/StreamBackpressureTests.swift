@testable import Courier
import Foundation
import XCTest

/// A consumer that stops makes the server stop: Courier holds at most its buffer's budget of
/// body (plus what the engine itself holds: libcurl's one paused chunk, or URLSession's delegate
/// queue), the rest waits in the kernel's socket buffers, and the server's `send` blocks. When
/// the consumer goes on, every byte arrives.
final class StreamBackpressureTests: XCTestCase {
    private static let size = 128 << 20
    private static let pauseAfter = 1 << 20

    /// What Courier and its engine may hold besides the buffer: on curl, the chunk libcurl keeps
    /// while paused (and the one it is reading); on URLSession, the callbacks waiting in the
    /// delegate queue (``BoundedDelegateQueue/limit``) and the one waiting for room.
    private func engineAllowance(_ network: Network, largestChunk: Int) -> Int {
        switch network.engine {
        case .curl: return 2 * max(largestChunk, 16 << 10)
        default: return (BoundedDelegateQueue.limit + 2) * max(largestChunk, 16 << 10)
        }
    }

    /// Counts what the server sent while the consumer was stopped, and what of it is neither
    /// consumed nor in the kernel's queues: what Courier held.
    private struct Pause {
        var sent = 0
        var consumed = 0
        var inKernel = 0
        var held: Int { sent - consumed - inKernel }
    }

    private func assertBounded(_ pause: Pause, network: Network, verifier: PatternVerifier, _ what: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        let allowance = engineAllowance(network, largestChunk: verifier.largestChunk)
        print("""
            \(what) (\(network.engine)): after a 2 s pause at \(pause.consumed >> 10) KiB the server had sent \(pause.sent >> 10) KiB: \
            \(pause.inKernel >> 10) KiB in the kernel's socket queues, \(pause.held >> 10) KiB held by Courier and its engine \
            (buffer \(StreamBuffer.defaultBudget >> 10) KiB + engine allowance \(allowance >> 10) KiB)
            """)
        XCTAssertLessThan(pause.sent, Self.size, "the server must have been stopped", file: file, line: line)
        XCTAssertLessThanOrEqual(pause.held, StreamBuffer.defaultBudget + allowance, what, file: file, line: line)
    }

    func testASlowOnDataStopsTheServerAndLosesNothing() throws {
        let server = try makeServer()
        let sent = ByteCounter()
        server.routePattern("/big", length: Self.size, sent: sent)
        let network = makeNetwork()
        let verifier = PatternVerifier()
        let pause = Box<Pause>()
        let done = expectation(description: "completion")
        network.stream(Request<Data>(url: server.url("/big"), timeout: 120), onData: { chunk in
            verifier.consume(chunk)
            guard pause.value == nil, verifier.count >= Self.pauseAfter else { return }
            // The scenario: the consumer stops for 2 s.
            Thread.sleep(forTimeInterval: 2)
            pause.value = Pause(sent: sent.value, consumed: verifier.count, inKernel: kernelQueuedBytes(port: server.port))
        }, completion: { result in
            if case let .failure(error) = result { XCTFail("\(error)") }
            done.fulfill()
        })
        wait(for: [done], timeout: 120)
        verifier.assertComplete(Self.size)
        assertBounded(try XCTUnwrap(pause.value), network: network, verifier: verifier, "onData")
    }

    func testASlowAsyncLoopStopsTheServerAndLosesNothing() async throws {
        let server = try makeServer()
        let sent = ByteCounter()
        server.routePattern("/big", length: Self.size, sent: sent)
        let network = makeNetwork()
        let verifier = PatternVerifier()
        var pause: Pause?
        let (_, body) = try await network.bytes(for: Request<Data>(url: server.url("/big"), timeout: 120))
        for try await chunk in body {
            verifier.consume(chunk)
            if pause == nil, verifier.count >= Self.pauseAfter {
                try await Task.sleep(nanoseconds: 2_000_000_000)   // the scenario: the loop stops for 2 s
                pause = Pause(sent: sent.value, consumed: verifier.count, inKernel: kernelQueuedBytes(port: server.port))
            }
        }
        verifier.assertComplete(Self.size)
        assertBounded(try XCTUnwrap(pause), network: network, verifier: verifier, "bytes(for:)")
    }

    /// On the curl engine a stream waits alone: libcurl pauses that one transfer, and every
    /// other request of the network goes on. (On URLSession the delegate queue, which every
    /// request shares, is what waits: see Sources/Courier/Courier.docc/Streaming.md.)
    func testAStoppedStreamDoesNotHoldUpOtherRequestsOnCurl() throws {
        let network = makeNetwork()
        try XCTSkipUnless(network.engine == .curl, "URLSession streams wait on the shared delegate queue")
        let server = try makeServer().withStandardRoutes()
        let sent = ByteCounter()
        server.routePattern("/big", length: Self.size, sent: sent)
        let release = Gate()
        addTeardownBlock { release.open() }
        let stopped = Gate()
        let task = network.stream(Request<Data>(url: server.url("/big"), timeout: 120), onData: { _ in
            stopped.open()
            release.wait(timeout: 60)   // the consumer stops until the other requests are done
        }, completion: { _ in })
        XCTAssertTrue(stopped.wait(timeout: 10))
        XCTAssertTrue(waitUntil { kernelQueuedBytes(port: server.port) > 0 && sent.value < Self.size })
        for _ in 0..<20 {
            XCTAssertEqual(try network.scheduleSynchronously(Request<Data>.get(server.url("/hello")).string(), timeout: 10).get(), "hello")
        }
        XCTAssertLessThan(sent.value, Self.size)
        release.open()
        task.cancel()
    }
}
