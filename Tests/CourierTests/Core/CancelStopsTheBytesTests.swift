import Courier
import Foundation
import XCTest

/// On the curl engine a cancel stops the transfer itself, not only its reporting: the handle
/// leaves libcurl at once and its connection is closed, so the server can no longer write.
/// (URLSession's cancel on Linux lets a transfer run on; see Sources/Courier/Courier.docc/LinuxNotes.md.)
final class CancelStopsTheBytesTests: XCTestCase {
    func testCancellingAnEndlessDownloadStopsTheServersWrites() throws {
        let callbacks = DispatchQueue(label: "test.callbacks")
        let network = makeNetwork(callbackQueue: callbacks)
        guard network.engine == .curl else { throw XCTSkip("the curl engine only: URLSession's cancel lets the bytes run on") }

        // An endless body, written as fast as the client reads it; the server counts every byte
        // a write accepted, and stops when a write fails.
        let server = try makeServer()
        let written = Box<Int>(0)
        let writesFailed = Gate()
        server.route("/endless") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Type", "application/octet-stream"), ("Connection", "close")])
            let chunk = Data(repeating: 0x5A, count: 64 * 1024)
            while true {
                writer.write(chunk)
                if writer.peerHasGone { break }
                written.mutate { $0! += chunk.count }
            }
            writesFailed.open()
        }

        let events = Box<[String]>([])
        let wellUnderWay = expectation(description: "4 MB received")
        wellUnderWay.assertForOverFulfill = false
        let done = expectation(description: "completion")
        let destination = try makeTemporaryDirectory().appendingPathComponent("endless.bin")
        let task = network.download(Request<Data>.get(server.url("/endless")), to: destination) { progress in
            events.mutate { $0?.append("progress") }
            if progress.completedBytes >= 4 << 20 { wellUnderWay.fulfill() }
        } completion: { result in
            events.mutate { $0?.append("completion \(result)") }
            done.fulfill()
        }
        wait(for: [wellUnderWay], timeout: 30)
        let writtenAtCancel = written.value ?? 0
        task.cancel()
        wait(for: [done], timeout: 10)

        // The connection is gone: the server's next writes fail, once what the socket buffers
        // hold has been written (a few MB on loopback), however long the body would have run.
        XCTAssertTrue(writesFailed.wait(timeout: 10), "the server could still write \((written.value ?? 0) - writtenAtCancel) bytes after the cancel")
        XCTAssertLessThan((written.value ?? 0) - writtenAtCancel, 64 << 20)

        // Anything the cancelled download could still deliver would be queued on the callback
        // queue before the completion of a later request of the same network.
        let server2 = try makeServer().withStandardRoutes()
        XCTAssertNotNil(try result(of: Request<Data>.get(server2.url("/hello")), on: network)?.get())
        callbacks.sync {}
        let log = events.value ?? []
        XCTAssertEqual(log.filter { $0.hasPrefix("completion") }.count, 1)
        XCTAssertTrue(log.last?.hasPrefix("completion failure") ?? false, "\(log.suffix(3))")
        XCTAssertTrue(log.last?.contains("cancelled") ?? false, "\(log.suffix(1))")
    }
}
