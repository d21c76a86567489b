import Courier
import Foundation
import XCTest

/// Streamed uploads: `.file` and `.multipart` bodies, with progress and clean-up.
final class UploadTests: XCTestCase {
    /// Temporary files of Courier's own (multipart bodies) currently on disk.
    /// Courier's upload files in the shared temporary folder, less those already there when the
    /// test began (left by another process, which this test must not blame on itself).
    private func courierTemporaryFiles() -> [String] {
        uploadFiles().filter { !preexisting.contains($0) }
    }

    private func uploadFiles() -> [String] {
        fileNames(in: FileManager.default.temporaryDirectory).filter { $0.hasPrefix("courier-upload-") }
    }

    private var preexisting: Set<String> = []

    override func setUp() {
        super.setUp()
        preexisting = Set(uploadFiles())
    }

    func testFileBodyIsStreamedWithUploadProgress() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("photo.png")
        let content = randomBytes(5_000_000, seed: 21)
        try content.write(to: file)
        let uploads = Box<[TransferProgress]>([])
        let result = makeNetwork().scheduleSynchronously(
            Request<Data>(method: .put, url: server.url("/echo"), body: .file(file)), timeout: 60
        ) { progress in
            if progress.direction == .upload { uploads.mutate { $0?.append(progress) } }
        }
        XCTAssertEqual(try result.get(), content)
        let received = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(received.header("Content-Type"), "image/png")
        XCTAssertEqual(received.header("Content-Length"), "5000000")
        let events = uploads.value ?? []
        XCTAssertEqual(events.last?.completedBytes, Int64(content.count))
        XCTAssertEqual(events.last?.totalBytes, Int64(content.count))
        XCTAssertEqual(events.map(\.completedBytes), events.map(\.completedBytes).sorted())
    }

    func testMissingUploadFileIsAFileSystemError() throws {
        let server = try makeServer().withStandardRoutes()
        let missing = URL(fileURLWithPath: "/nonexistent/courier/file.bin")
        let result = makeNetwork().scheduleSynchronously(Request<Data>(method: .post, url: server.url("/echo"), body: .file(missing)), timeout: 30)
        guard case let .fileSystem(url, _)? = networkError(result) else { return XCTFail("expected fileSystem") }
        XCTAssertEqual(url, missing)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testMultipartFormReachesTheServerIntact() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("notes.txt")
        try Data("file contents\n".utf8).write(to: file)
        var form = MultipartForm()
        form.addField(name: "title", value: "Hello \"world\"")
        form.addData(name: "blob", data: Data([0, 1, 2, 255]), filename: "blob.bin")
        form.addFile(name: "attachment", fileURL: file)
        let result = makeNetwork().scheduleSynchronously(Request<Data>(method: .post, url: server.url("/echo"), body: .multipart(form)), timeout: 30)
        XCTAssertEqual(try result.get(), try form.encodedData())
        let received = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(received.header("Content-Type"), form.contentType)
        let text = String(decoding: received.body, as: UTF8.self)
        XCTAssertTrue(text.contains(#"Content-Disposition: form-data; name="title""#))
        XCTAssertTrue(text.contains("\r\n\r\nHello \"world\"\r\n"), "field values are sent as they are")
        XCTAssertTrue(text.contains(#"name="attachment"; filename="notes.txt""#))
        XCTAssertTrue(text.contains("Content-Type: text/plain"))
        XCTAssertTrue(text.hasSuffix("--\(form.boundary)--\r\n"))
        XCTAssertEqual(courierTemporaryFiles(), [])
    }

    func testMultipartTemporaryFileIsRemovedWhenTheUploadFailsOrIsCancelled() throws {
        let server = try makeServer()
        let gate = Gate()
        let arrived = Gate()
        addTeardownBlock { gate.open() }
        server.route("/slow-upload") { _, writer in
            arrived.open()
            gate.wait(timeout: 30)
            writer.respond(status: 200, text: "ok")
        }
        var form = MultipartForm()
        form.addData(name: "data", data: randomBytes(200_000), filename: "d.bin")
        let network = makeNetwork()

        let refused = URL(string: "http://127.0.0.1:\(TestServer.unusedPort())/")!
        guard case .transport? = networkError(network.scheduleSynchronously(Request<Data>(method: .post, url: refused, body: .multipart(form)), timeout: 30)) else {
            return XCTFail("expected transport")
        }
        XCTAssertEqual(courierTemporaryFiles(), [])

        let done = expectation(description: "cancelled")
        let task = network.schedule(Request<Data>(method: .post, url: server.url("/slow-upload"), body: .multipart(form))) { result in
            guard case .failure(NetworkError.cancelled) = result else { return XCTFail("\(result)") }
            done.fulfill()
        }
        XCTAssertTrue(arrived.wait(timeout: 10))
        task.cancel()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(courierTemporaryFiles(), [])
    }

    func testARetriedMultipartUploadSendsTheSameBodyAndLeavesNoFile() throws {
        let server = try makeServer().withStandardRoutes()
        let attempts = Box<Int>(0)
        server.route("/flaky-upload") { request, writer in
            attempts.mutate { $0! += 1 }
            if attempts.value == 1 { return writer.respond(status: 503, text: "busy") }
            writer.respond(status: 200, body: request.body)
        }
        var form = MultipartForm()
        form.addField(name: "note", value: "again")
        form.addData(name: "data", data: randomBytes(100_000, seed: 43), filename: "d.bin")
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
        let echoed = try XCTUnwrap(result(of: Request<Data>(method: .put, url: server.url("/flaky-upload"), body: .multipart(form)), on: network)?.get())
        let bodies = server.receivedRequests.filter { $0.path == "/flaky-upload" }.map(\.body)
        XCTAssertEqual(bodies.count, 2)
        XCTAssertEqual(bodies.first, echoed, "both attempts sent the same bytes")
        XCTAssertEqual(courierTemporaryFiles(), [])
    }

    func testA100MegabyteFilePartUploadsWithFlatMemory() throws {
        let folder = try makeTemporaryDirectory()
        let spool = try makeTemporaryDirectory()
        let source = folder.appendingPathComponent("video.mp4")
        _ = FileManager.default.createFile(atPath: source.path, contents: nil)
        let handle = try FileHandle(forWritingTo: source)
        let chunk = randomBytes(1 << 20, seed: 23)
        for index in 0..<100 {
            var block = chunk
            block[0] = UInt8(truncatingIfNeeded: index)
            try handle.write(contentsOf: block)
        }
        try handle.close()

        let server = try makeServer()
        server.spoolBodies(of: "/upload", into: spool)
        server.route("/upload") { _, writer in writer.respond(status: 201, text: "stored") }
        var form = MultipartForm()
        form.addField(name: "caption", value: "big")
        form.addFile(name: "video", fileURL: source)

        let baseline = residentMemoryBytes()
        let peak = Box<Int>(baseline)
        let result = makeNetwork().scheduleSynchronously(
            Request<Data>(method: .post, url: server.url("/upload"), body: .multipart(form), timeout: 300).string(), timeout: 300
        ) { _ in
            let now = residentMemoryBytes()
            peak.mutate { $0 = max($0!, now) }
        }
        XCTAssertEqual(try result.get(), "stored")
        assertMemoryGrowth((peak.value ?? 0) - baseline, below: 64 << 20, "100 MB multipart upload, at peak")

        // Server side: the spooled body is exactly the encoded form, file part byte for byte.
        let stored = try XCTUnwrap(server.receivedRequests.last?.bodyFile)
        let expected = folder.appendingPathComponent("expected.multipart")
        try form.writeEncoded(to: expected)
        let left = try FileHandle(forReadingFrom: stored)
        let right = try FileHandle(forReadingFrom: expected)
        defer { try? left.close(); try? right.close() }
        var compared = 0
        while true {
            let a = try left.read(upToCount: 4 << 20) ?? Data()
            let b = try right.read(upToCount: 4 << 20) ?? Data()
            XCTAssertEqual(a, b, "bodies differ after byte \(compared)")
            if a.isEmpty || a != b { break }
            compared += a.count
        }
        XCTAssertGreaterThan(compared, 100 << 20)
        XCTAssertEqual(courierTemporaryFiles(), [])
    }
}
