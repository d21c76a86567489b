@testable import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// `streamSynchronously`: the body written to a file handle (a pipe here) on the calling thread
/// as it arrives, with the guarantees of the other blocking calls.
final class StreamSynchronousTests: XCTestCase {
    /// Reads everything from `pipe` on a thread of its own, checking it against the pattern.
    private func drain(_ pipe: Pipe, into verifier: PatternVerifier) -> Gate {
        let finished = Gate()
        Thread {
            let reader = pipe.fileHandleForReading
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                verifier.consume(data)
            }
            finished.open()
        }.start()
        return finished
    }

    func testTheBodyGoesToThePipeAsItArrivesWithProgress() throws {
        let server = try makeServer()
        let size = 32 << 20
        server.routePattern("/body", length: size)
        let network = makeNetwork()
        let pipe = Pipe()
        let verifier = PatternVerifier()
        let drained = drain(pipe, into: verifier)
        let last = Box<TransferProgress>()
        let result = network.streamSynchronously(Request<Data>.get(server.url("/body")), to: pipe.fileHandleForWriting, timeout: 60) {
            last.value = $0
        }
        try pipe.fileHandleForWriting.close()
        XCTAssertTrue(drained.wait(timeout: 30))
        XCTAssertEqual(try result.get().statusCode, 200)
        verifier.assertComplete(size)
        XCTAssertTrue(waitUntil { last.value?.completedBytes == Int64(size) })
        XCTAssertEqual(last.value?.totalBytes, Int64(size))
    }

    func testAReaderThatGoesAwayIsAWriteErrorNotSIGPIPE() throws {
        let server = try makeServer()
        let rest = Gate()
        addTeardownBlock { rest.open() }
        server.routePattern("/body", length: 64 << 20, hold: (offset: 32 << 20, gate: rest))
        let network = makeNetwork()
        let pipe = Pipe()
        // The default action of SIGPIPE ends the process: were the write not guarded, this
        // test run would die here. (The test server ignores SIGPIPE process-wide; restored after.)
        signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, SIG_IGN) }
        let reader = Thread {
            _ = try? pipe.fileHandleForReading.read(upToCount: 10)
            try? pipe.fileHandleForReading.close()
        }
        reader.start()
        let result = network.streamSynchronously(Request<Data>.get(server.url("/body")), to: pipe.fileHandleForWriting, timeout: 60)
        guard case let .fileSystem(url, error)? = networkError(result) else { return XCTFail("expected a write error: \(result)") }
        XCTAssertEqual(url.path, "/dev/fd/\(pipe.fileHandleForWriting.fileDescriptor)")
        XCTAssertEqual((error as? POSIXError)?.code, .EPIPE)
        XCTAssertTrue(waitUntil { openConnections(toPort: server.port) == 0 }, "the request was ended")
    }

    func testTheTimeoutEndsAStreamMidBody() throws {
        let server = try makeServer()
        let rest = Gate()
        addTeardownBlock { rest.open() }
        server.routePattern("/stalls", length: 4 << 20, hold: (offset: 1 << 20, gate: rest))
        let network = makeNetwork()
        var received = 0
        let result = network.streamSynchronously(Request<Data>.get(server.url("/stalls")), timeout: 0.5) { chunk in
            received += chunk.count
        }
        guard case .timedOut? = networkError(result) else { return XCTFail("\(result)") }
        XCTAssertEqual(received, 1 << 20, "what came before the stall was handed over")
    }

    func testAnErrorThrownByOnDataEndsTheRequestAndIsReturned() throws {
        struct Enough: Error {}
        let server = try makeServer()
        let rest = Gate()
        addTeardownBlock { rest.open() }
        server.routePattern("/long", length: 64 << 20, hold: (offset: 32 << 20, gate: rest))
        let network = makeNetwork()
        var calls: [String] = []
        let result = network.streamSynchronously(Request<Data>.get(server.url("/long")), timeout: 30) { response in
            calls.append("response \(response.statusCode)")
        } onData: { _ in
            calls.append("data")
            throw Enough()
        }
        guard case .failure(let error) = result, error is Enough else { return XCTFail("\(result)") }
        XCTAssertEqual(calls, ["response 200", "data"])
        XCTAssertTrue(waitUntil { openConnections(toPort: server.port) == 0 }, "the request was ended")
    }

    func testOnAnInternalQueueItSaysItWouldDeadlock() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let result = network.core.delegateQueue.sync {
            network.streamSynchronously(Request<Data>.get(server.url("/hello"))) { _ in }
        }
        guard case let .wouldDeadlock(reason)? = networkError(result) else { return XCTFail("expected wouldDeadlock") }
        XCTAssertTrue(reason.contains("delegate queue"), reason)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testFromInsideAStreamHandlerOfTheSameNetwork() throws {
        let server = try makeServer().withStandardRoutes()
        server.routePattern("/body", length: 1 << 20)
        let network = makeNetwork(limit: 1)
        let inner = Box<String>()
        let done = expectation(description: "completion")
        // With one slot, the inner blocking stream waits for the outer one's slot: it gets it
        // once the outer has its answer, before the outer's completion runs.
        network.stream(Request<Data>.get(server.url("/hello")), onData: { _ in }, completion: { _ in
            var text = Data()
            _ = network.streamSynchronously(Request<Data>.get(server.url("/hello")), timeout: 10) { text += $0 }
            inner.value = String(decoding: text, as: UTF8.self)
            done.fulfill()
        })
        wait(for: [done], timeout: 20)
        XCTAssertEqual(inner.value, "hello")
    }
}
