import Courier
import Foundation
import XCTest

/// Progress events: on the callback queue, throttled, monotonic, a final 100%, all before the completion.
final class ProgressTests: XCTestCase {
    func testDownloadProgressIsOrderedThrottledAndComplete() throws {
        let server = try makeServer()
        let size = 4_000_000
        server.route("/paced") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", String(size))])
            // 40 chunks spread out a little, so there is something to throttle.
            for _ in 0..<40 where !writer.peerHasGone {
                writer.write(Data(repeating: 0x50, count: size / 40))
                usleep(10_000)  // pacing the server, not synchronising the test
            }
        }
        let callbacks = QueueMarker(DispatchQueue(label: "test.progress", attributes: .concurrent))
        let network = makeNetwork(callbackQueue: callbacks.queue)
        let events = Box<[TransferProgress]>([])
        let completionSawEvents = Box<Int>()
        let done = expectation(description: "completion")
        let started = DispatchTime.now()
        let finished = Box<DispatchTime>()
        network.schedule(Request<Data>.get(server.url("/paced"))) { progress in
            XCTAssertTrue(callbacks.isCurrent)
            events.mutate { $0?.append(progress) }
        } completion: { result in
            XCTAssertTrue(callbacks.isCurrent)
            XCTAssertEqual((try? result.get())?.count, size)
            completionSawEvents.value = events.value?.count
            finished.value = DispatchTime.now()
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        let seen = events.value ?? []
        XCTAssertFalse(seen.isEmpty)
        // Nothing after the completion, everything in order, ending at exactly 100%.
        XCTAssertEqual(completionSawEvents.value, seen.count)
        XCTAssertEqual(seen.map(\.completedBytes), seen.map(\.completedBytes).sorted())
        XCTAssertEqual(Set(seen.map(\.completedBytes)).count, seen.count)
        XCTAssertEqual(seen.last?.completedBytes, Int64(size))
        XCTAssertEqual(seen.last?.fractionCompleted, 1)
        XCTAssertTrue(seen.allSatisfy { $0.totalBytes == Int64(size) && $0.direction == .download })
        // Throttled: at most one event per 50 ms while the request ran, plus the final one.
        // (A bound from the time the request took, so a slow machine cannot break it.)
        let elapsed = Double((finished.value ?? .now()).uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        XCTAssertLessThanOrEqual(seen.count, Int(elapsed / 0.05) + 2, "\(seen.count) events in \(elapsed) s")
    }

    func testAStalledTransferShowsEveryByteItHasReceived() throws {
        let server = try makeServer()
        let resume = Gate()
        addTeardownBlock { resume.open() }
        server.route("/stall") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "100000")])
            // Ten quick writes: all but the first fall inside one throttle interval.
            for _ in 0..<10 { writer.write(Data(repeating: 0x53, count: 4_000)) }
            resume.wait(timeout: 30)
            writer.write(Data(repeating: 0x53, count: 60_000))
        }
        let stalledAtTheEnd = expectation(description: "the held-back count arrives during the stall")
        stalledAtTheEnd.assertForOverFulfill = false
        let done = expectation(description: "completion")
        makeNetwork().schedule(Request<Data>.get(server.url("/stall"))) { progress in
            if progress.completedBytes == 40_000 { stalledAtTheEnd.fulfill() }
        } completion: { result in
            XCTAssertEqual((try? result.get())?.count, 100_000)
            done.fulfill()
        }
        // While the server waits, the throttle's trailing edge must still report all 40,000 bytes.
        wait(for: [stalledAtTheEnd], timeout: 20)
        resume.open()
        wait(for: [done], timeout: 20)
    }

    func testUnknownLengthHasNoFractionButStillEnds() throws {
        let server = try makeServer()
        server.route("/chunked") { _, writer in
            writer.writeHead(status: 200, headers: [("Transfer-Encoding", "chunked")])
            for _ in 0..<3 {
                writer.write(Data("400\r\n".utf8) + Data(repeating: 0x51, count: 0x400) + Data("\r\n".utf8))
            }
            writer.write(Data("0\r\n\r\n".utf8))
        }
        let network = makeNetwork()
        let events = Box<[TransferProgress]>([])
        let done = expectation(description: "completion")
        network.schedule(Request<Data>.get(server.url("/chunked"))) { progress in
            events.mutate { $0?.append(progress) }
        } completion: { result in
            XCTAssertEqual((try? result.get())?.count, 3 * 0x400)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        let seen = events.value ?? []
        XCTAssertEqual(seen.last?.completedBytes, Int64(3 * 0x400))
        XCTAssertTrue(seen.allSatisfy { $0.totalBytes == nil && $0.fractionCompleted == nil })
    }

    func testUploadProgressIsReported() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let body = Data(repeating: 0x55, count: 3_000_000)
        let uploads = Box<[TransferProgress]>([])
        let done = expectation(description: "completion")
        network.schedule(Request<Data>(method: .post, url: server.url("/echo"), body: .data(body, contentType: "application/octet-stream"))) { progress in
            if progress.direction == .upload { uploads.mutate { $0?.append(progress) } }
        } completion: { result in
            XCTAssertEqual(try? result.get(), body)
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        let seen = uploads.value ?? []
        XCTAssertEqual(seen.last?.completedBytes, Int64(body.count))
        XCTAssertEqual(seen.map(\.completedBytes), seen.map(\.completedBytes).sorted())
    }
}
