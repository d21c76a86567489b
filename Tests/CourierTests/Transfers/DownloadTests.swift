import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Downloads to disk: atomic results, cancel-and-resume, clean-up, and typed errors.
final class DownloadTests: XCTestCase {
    /// A resource the server can change under a client's feet.
    final class Resource: @unchecked Sendable {
        private let lock = NSLock()
        private var content: Data
        private var tag: String
        init(_ content: Data, etag: String) {
            self.content = content
            self.tag = etag
        }
        var current: (Data, String) { lock.withLock { (content, tag) } }
        func replace(with content: Data, etag: String) { lock.withLock { self.content = content; self.tag = etag } }
    }

    /// Serves `resource` resumably. The n-th request's body stops at `stops[n]` (an offset in the
    /// whole resource) and hangs there until the test ends; requests past the list run to the end.
    private func serve(_ resource: Resource, at path: String, on server: TestServer, stoppingAt stops: [Int] = []) {
        let pending = Box<[Int]>(stops)
        let release = Gate()
        addTeardownBlock { release.open() }
        server.route(path) { request, writer in
            let (content, etag) = resource.current
            var stop: Int?
            pending.mutate { if $0?.isEmpty == false { stop = $0?.removeFirst() } }
            writer.serve(content, etag: etag, request: request, stop: stop.map { ($0, { release.wait(timeout: 30) }) })
        }
    }

    /// Serves `content` resumably, except that the first request gets only `after` bytes before
    /// the connection drops.
    private func routeDroppingTheFirstAttempt(_ path: String, on server: TestServer, content: Data, after cut: Int) {
        let attempts = Box<Int>(0)
        server.route(path) { request, writer in
            attempts.mutate { $0! += 1 }
            if attempts.value == 1 {
                writer.writeHead(status: 200, headers: [("Content-Length", "\(content.count)"), ("ETag", "\"flaky\"")])
                writer.write(content.prefix(cut))
                writer.closeConnection()
            } else {
                writer.serve(content, etag: "\"flaky\"", request: request)
            }
        }
    }

    /// Starts a download and cancels it from its progress handler once `threshold` bytes are in.
    private func downloadAndCancel(_ url: URL, to destination: URL, after threshold: Int64, on network: Network) -> Result<URL, any Error>? {
        let done = expectation(description: "cancelled download")
        let task = Box<NetworkTask>()
        let outcome = Box<Result<URL, any Error>>()
        task.value = network.download(Request<Data>.get(url), to: destination) { progress in
            if progress.completedBytes >= threshold { task.value?.cancel() }
        } completion: { result in
            outcome.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        return outcome.value
    }

    func testDownloadIsWrittenAtomicallyAndLeavesNothingElse() throws {
        let server = try makeServer()
        let content = randomBytes(3_000_000)
        serve(Resource(content, etag: "\"v1\""), at: "/file", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("file.bin")
        let callbacks = QueueMarker(DispatchQueue(label: "test.download", attributes: .concurrent))
        let network = makeNetwork(callbackQueue: callbacks.queue)

        let done = expectation(description: "download")
        let progress = Box<[TransferProgress]>([])
        network.download(Request<Data>.get(server.url("/file")), to: destination) { event in
            XCTAssertTrue(callbacks.isCurrent, "progress runs on the callback queue")
            progress.mutate { $0?.append(event) }
        } completion: { result in
            XCTAssertTrue(callbacks.isCurrent, "the completion runs on the callback queue")
            XCTAssertEqual(try? result.get(), destination.standardizedFileURL)
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(fileNames(in: folder), ["file.bin"])
        let events = progress.value ?? []
        XCTAssertEqual(events.last?.completedBytes, Int64(content.count))
        XCTAssertEqual(events.last?.fractionCompleted, 1)
        XCTAssertEqual(events.map(\.completedBytes), events.map(\.completedBytes).sorted())
    }

    func testCancelKeepsThePartialFileAndEachCallResumes() throws {
        let server = try makeServer()
        let content = randomBytes(2_000_000, seed: 7)
        // Each of the first three responses stops at the next threshold, where the client cancels.
        let thresholds = [300_000, 800_000, 1_400_000]
        serve(Resource(content, etag: "\"abc\""), at: "/slow", on: server, stoppingAt: thresholds)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("big.bin")
        let network = makeNetwork()

        var previous: Int64 = 0
        for threshold in thresholds {
            guard case .cancelled? = networkError(downloadAndCancel(server.url("/slow"), to: destination, after: Int64(threshold), on: network)) else {
                return XCTFail("expected cancelled")
            }
            XCTAssertEqual(fileNames(in: folder), ["big.bin.partial", "big.bin.partial.json"])
            let partial = try Data(contentsOf: folder.appendingPathComponent("big.bin.partial"))
            XCTAssertEqual(partial.count, threshold, "every byte received before the cancel is kept")
            XCTAssertEqual(partial, content.prefix(partial.count), "the partial file is a prefix of the source")
            previous = Int64(partial.count)
        }
        let resumeRequests = server.receivedRequests.filter { $0.header("Range") != nil }
        XCTAssertEqual(resumeRequests.count, 2)
        XCTAssertTrue(resumeRequests.allSatisfy { $0.header("If-Range") == "\"abc\"" })

        // A new Network stands for a new process: only the files on disk carry over.
        let fresh = makeNetwork()
        let resumedFrom = Box<Int64>()
        let result = fresh.downloadSynchronously(Request<Data>.get(server.url("/slow")), to: destination, timeout: 60) { progress in
            if resumedFrom.value == nil { resumedFrom.value = progress.completedBytes }
        }
        XCTAssertEqual(try result.get(), destination.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(fileNames(in: folder), ["big.bin"])
        XCTAssertEqual(server.receivedRequests.last?.header("Range"), "bytes=\(previous)-")
        XCTAssertEqual(resumedFrom.value, previous, "progress counts from the resumed offset")
    }

    func testResumesWhenAnInterceptorChangesTheURLEveryTime() throws {
        struct Signer: RequestInterceptor {
            func adapt(_ request: URLRequest, context: RequestContext,
                       completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
                var signed = request
                signed.url = URL(string: request.url!.absoluteString + "?sig=\(UUID().uuidString)")
                let result = signed
                completion(.success(result))
            }
        }
        let server = try makeServer()
        let content = randomBytes(1_000_000, seed: 31)
        serve(Resource(content, etag: "\"s\""), at: "/signed", on: server, stoppingAt: [200_000])
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("signed.bin")
        let network = makeNetwork()
        network.interceptors = [Signer()]
        guard case .cancelled? = networkError(downloadAndCancel(server.url("/signed"), to: destination, after: 200_000, on: network)) else {
            return XCTFail("expected cancelled")
        }
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/signed")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertNotNil(server.receivedRequests.last?.header("Range"), "the second call resumed")
    }

    func testAReSignedURLResumesAndTheValidatorDecides() throws {
        let server = try makeServer()
        let resource = Resource(randomBytes(1_000_000, seed: 32), etag: "\"s1\"")
        // The first and third requests stop part-way, where the client cancels (a stop at the
        // end of the resource, as for the second, stops nothing).
        serve(resource, at: "/presigned", on: server, stoppingAt: [200_000, 1_000_000, 300_000])
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("presigned.bin")
        let network = makeNetwork()
        func signed(_ signature: String) -> URL { server.url("/presigned?sig=\(signature)&expires=1") }

        guard case .cancelled? = networkError(downloadAndCancel(signed("A"), to: destination, after: 200_000, on: network)) else {
            return XCTFail("expected cancelled")
        }
        // Issued again with another signature: the same resource, so the rest is asked for.
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(signed("B")), to: destination, timeout: 30).get())
        let resumed = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(resumed.query, "sig=B&expires=1")
        XCTAssertEqual(resumed.header("Range"), "bytes=200000-")
        XCTAssertEqual(resumed.header("If-Range"), "\"s1\"")
        XCTAssertEqual(try Data(contentsOf: destination), resource.current.0)
        XCTAssertEqual(fileNames(in: folder), ["presigned.bin"])

        // With .requireSameURL only the very same URL resumes: another signature starts over.
        try FileManager.default.removeItem(at: destination)
        guard case .cancelled? = networkError(downloadAndCancel(signed("C"), to: destination, after: 300_000, on: network)) else {
            return XCTFail("expected cancelled")
        }
        XCTAssertEqual(fileNames(in: folder), ["presigned.bin.partial", "presigned.bin.partial.json"])
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(signed("D")), to: destination,
                                                           options: .requireSameURL, timeout: 30).get())
        XCTAssertNil(server.receivedRequests.last?.header("Range"))
        XCTAssertEqual(try Data(contentsOf: destination), resource.current.0)
        XCTAssertEqual(fileNames(in: folder), ["presigned.bin"])
    }

    func testAReSignedURLOfAChangedFileStartsOverCleanly() throws {
        let server = try makeServer()
        let resource = Resource(randomBytes(800_000, seed: 33), etag: "\"old\"")
        serve(resource, at: "/presigned", on: server, stoppingAt: [250_000])
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("changed.bin")
        let network = makeNetwork()
        guard case .cancelled? = networkError(downloadAndCancel(server.url("/presigned?sig=A"), to: destination, after: 250_000, on: network)) else {
            return XCTFail("expected cancelled")
        }
        let replacement = randomBytes(600_000, seed: 34)
        resource.replace(with: replacement, etag: "\"new\"")
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/presigned?sig=B")), to: destination, timeout: 30).get())
        let last = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(last.header("Range"), "bytes=250000-", "asked for the rest")
        XCTAssertEqual(last.header("If-Range"), "\"old\"", "of the entity the bytes came from")
        XCTAssertEqual(try Data(contentsOf: destination), replacement, "the 200 with the new entity replaced them")
        XCTAssertEqual(fileNames(in: folder), ["changed.bin"])
    }

    func testAnotherResourceOrAWeakValidatorIsNeverResumedForAnotherURL() throws {
        let server = try makeServer()
        let content = randomBytes(100_000, seed: 35)
        serve(Resource(content, etag: "\"p\""), at: "/other", on: server)
        serve(Resource(content, etag: "\"p\""), at: "/p", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("p.bin")
        let network = makeNetwork()
        // Partial files recorded for another path, another host and another port of the same
        // content; and for another query with a validator that cannot tell files apart (a date,
        // a weak tag).
        let records = [(server.url("/p-old?sig=1").absoluteString, #""p""#), ("http://localhost:\(server.port)/p", #""p""#),
                       ("http://127.0.0.1:\(TestServer.unusedPort())/p", #""p""#),
                       (server.url("/p?sig=1").absoluteString, ResponseWriter.lastModified),
                       (server.url("/p?sig=1").absoluteString, #"W/"p""#)]
        for (recorded, validator) in records {
            try Data(repeating: 0, count: 5000).write(to: URL(fileURLWithPath: destination.path + ".partial"))
            let record = try JSONSerialization.data(withJSONObject: ["bytes": 5000, "url": recorded, "validator": validator])
            try record.write(to: URL(fileURLWithPath: destination.path + ".partial.json"))
            XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/p?sig=2")), to: destination,
                                                               options: .replaceExisting, timeout: 30).get())
            XCTAssertNil(server.receivedRequests.last?.header("Range"), recorded)
            XCTAssertEqual(try Data(contentsOf: destination), content)
        }
    }

    func testAChangedFileStartsOverCleanly() throws {
        let server = try makeServer()
        let resource = Resource(randomBytes(1_000_000, seed: 1), etag: "\"old\"")
        serve(resource, at: "/changing", on: server, stoppingAt: [200_000])
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("doc.bin")
        let network = makeNetwork()
        guard case .cancelled? = networkError(downloadAndCancel(server.url("/changing"), to: destination, after: 200_000, on: network)) else {
            return XCTFail("expected cancelled")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: destination.path + ".partial")?.count, 200_000)

        let replacement = randomBytes(700_000, seed: 2)
        resource.replace(with: replacement, etag: "\"new\"")
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/changing")), to: destination, timeout: 60).get())
        XCTAssertEqual(try Data(contentsOf: destination), replacement)
        XCTAssertEqual(server.receivedRequests.last?.header("If-Range"), "\"old\"")
        XCTAssertEqual(fileNames(in: folder), ["doc.bin"])
    }

    func testA307WithABodyIsFollowedWithTheBody() throws {
        let server = try makeServer()
        let content = randomBytes(200_000, seed: 8)
        server.route("/export") { _, writer in writer.respond(status: 307, headers: ["Location": "/export-v2"]) }
        server.route("/export-v2") { request, writer in
            guard request.method == "POST", request.body == Data("format=csv".utf8) else {
                return writer.respond(status: 400, text: "body lost")
            }
            writer.serve(content, etag: "\"x\"", request: request)
        }
        let destination = try makeTemporaryDirectory().appendingPathComponent("export.csv")
        let request = Request<Data>(method: .post, url: server.url("/export"), body: .text("format=csv"))
        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(request, to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
    }

    func testUnsatisfiableRangeStartsOver() throws {
        let server = try makeServer()
        let content = randomBytes(50_000, seed: 3)
        serve(Resource(content, etag: "\"e\""), at: "/small", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("small.bin")
        // A partial file longer than the resource (say, the server's file was truncated).
        try randomBytes(80_000, seed: 4).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        try Data(#"{"bytes":80000,"url":"\#(server.url("/small").absoluteString)","validator":"\"e\""}"#.utf8)
            .write(to: URL(fileURLWithPath: destination.path + ".partial.json"))

        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/small")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        let asked = server.receivedRequests.map { $0.header("Range") ?? "none" }
        XCTAssertEqual(asked, ["bytes=80000-", "none"])
        XCTAssertEqual(fileNames(in: folder), ["small.bin"])
    }

    func testDroppedConnectionKeepsBytesAndTheNextCallCompletesTheFile() throws {
        let server = try makeServer()
        let content = randomBytes(600_000, seed: 5)
        routeDroppingTheFirstAttempt("/flaky", on: server, content: content, after: 250_000)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("flaky.bin")
        let network = makeNetwork()
        guard case .incompleteBody? = networkError(network.downloadSynchronously(Request<Data>.get(server.url("/flaky")), to: destination, timeout: 30)) else {
            return XCTFail("expected incompleteBody")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination.path + ".partial")), content.prefix(250_000))
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/flaky")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(server.receivedRequests.last?.header("Range"), "bytes=250000-")
    }

    func testWithRetriesADroppedConnectionResumesOnItsOwn() throws {
        let server = try makeServer()
        let content = randomBytes(400_000, seed: 6)
        routeDroppingTheFirstAttempt("/flaky", on: server, content: content, after: 150_000)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("auto.bin")
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/flaky")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(server.receivedRequests.map { $0.header("Range") ?? "none" }, ["none", "bytes=150000-"])
        XCTAssertEqual(fileNames(in: folder), ["auto.bin"])
    }

    func testErrorStatusWritesNoFileAndKeepsTheErrorBody() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("missing.bin")
        guard case let .httpStatus(response)? = networkError(makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/status?code=404")), to: destination, timeout: 30)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(response.text, "status 404 body")
        XCTAssertEqual(fileNames(in: folder), [])
    }

    func testErrorStatusLeavesAnEarlierPartialFileUntouched() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("keep.bin")
        let partial = randomBytes(10_000, seed: 9)
        let sidecar = Data(#"{"bytes":10000,"url":"\#(server.url("/status?code=500").absoluteString)","validator":"\"x\""}"#.utf8)
        try partial.write(to: URL(fileURLWithPath: destination.path + ".partial"))
        try sidecar.write(to: URL(fileURLWithPath: destination.path + ".partial.json"))
        guard case .httpStatus? = networkError(makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/status?code=500")), to: destination, timeout: 30)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination.path + ".partial")), partial)
        XCTAssertEqual(fileNames(in: folder), ["keep.bin.partial", "keep.bin.partial.json"])
    }

    func testNoResumeIgnoresAPartialFile() throws {
        let server = try makeServer()
        let content = randomBytes(100_000, seed: 11)
        serve(Resource(content, etag: "\"n\""), at: "/n", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("n.bin")
        try Data(repeating: 0, count: 5000).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        try Data(#"{"bytes":5000,"url":"\#(server.url("/n").absoluteString)","validator":"\"n\""}"#.utf8)
            .write(to: URL(fileURLWithPath: destination.path + ".partial.json"))
        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/n")), to: destination, options: .noResume, timeout: 30).get())
        XCTAssertNil(server.receivedRequests.last?.header("Range"))
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(fileNames(in: folder), ["n.bin"])
    }

    func testExistingDestinationIsReplacedOnlyWhenAsked() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("hello.txt")
        try Data("old".utf8).write(to: destination)
        let network = makeNetwork()
        guard case .destinationExists? = networkError(network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, timeout: 30)) else {
            return XCTFail("expected destinationExists")
        }
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
        XCTAssertEqual(server.requestCount, 0, "refused before anything was asked")
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, options: .replaceExisting, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), Data("hello".utf8))
        XCTAssertEqual(fileNames(in: folder), ["hello.txt"])
    }

    func testFoldersAreCreatedOnlyWhenAsked() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("a/b/hello.txt")
        let network = makeNetwork()
        guard case .fileSystem? = networkError(network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, timeout: 30)) else {
            return XCTFail("expected fileSystem")
        }
        XCTAssertEqual(fileNames(in: folder), [])
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, options: .createDirectories, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), Data("hello".utf8))
    }

    func testUnwritableLocationIsAFileSystemError() throws {
        let server = try makeServer().withStandardRoutes()
        // /proc cannot hold new folders or files, even for root.
        let destination = URL(fileURLWithPath: "/proc/courier-test/hello.txt")
        guard case let .fileSystem(url, _)? = networkError(makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, options: .createDirectories, timeout: 30)) else {
            return XCTFail("expected fileSystem")
        }
        XCTAssertEqual(url.path, "/proc/courier-test")
    }

    func testFullDiskIsAFileSystemErrorAndNotACrash() throws {
        let server = try makeServer()
        serve(Resource(randomBytes(1_000_000, seed: 13), etag: "\"d\""), at: "/big", on: server)
        let mountPoint = try makeTemporaryDirectory()
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint.path]
        mount.standardError = FileHandle.nullDevice
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { throw XCTSkip("cannot mount a small tmpfs here (needs root)") }
        addTeardownBlock {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [mountPoint.path]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        let destination = mountPoint.appendingPathComponent("big.bin")
        guard case let .fileSystem(url, _)? = networkError(makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/big")), to: destination, timeout: 30)) else {
            return XCTFail("expected fileSystem")
        }
        XCTAssertEqual(url.lastPathComponent, "big.bin.partial")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testAsyncDownloadAndTaskCancellationKeepsPartial() async throws {
        let server = try makeServer()
        let content = randomBytes(2_000_000, seed: 17)
        serve(Resource(content, etag: "\"as\""), at: "/async", on: server, stoppingAt: [500_000])
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("async.bin")
        let network = makeNetwork()
        let halfway = expectation(description: "some bytes")
        halfway.assertForOverFulfill = false
        let task = Task {
            try await network.download(Request<Data>.get(server.url("/async")), to: destination) { progress in
                if progress.completedBytes == 500_000 { halfway.fulfill() }
            }
        }
        await fulfillment(of: [halfway], timeout: 20)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected CancellationError")
        } catch is CancellationError {}
        XCTAssertEqual(fileNames(in: folder), ["async.bin.partial", "async.bin.partial.json"])
        XCTAssertEqual(FileManager.default.contents(atPath: destination.path + ".partial")?.count, 500_000)
        let url = try await network.download(Request<Data>.get(server.url("/async")), to: destination)
        XCTAssertEqual(try Data(contentsOf: url), content)
    }
}
