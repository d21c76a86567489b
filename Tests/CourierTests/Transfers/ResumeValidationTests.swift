import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A resumed download is the one version of the file or nothing: hostile servers that answer a
/// resume with another version's bytes (ignoring `If-Range`), and two downloads to one destination.
final class ResumeValidationTests: XCTestCase {
    private let size = 2_000_000
    private let cut = 700_000
    private lazy var first = randomBytes(size, seed: 101)
    private lazy var second = randomBytes(size, seed: 202)

    /// The first request gets `firstHead` and `cut` bytes of `first`, then the connection closes.
    /// A request with `Range` gets `rangeReply`; one without gets `second`, whole, with `secondHead`.
    private func routeChangingFile(on server: TestServer, firstHead: [(String, String)], secondHead: [(String, String)],
                                   rangeReply: @escaping @Sendable (ServerRequest, ResponseWriter) -> Void) {
        let (first, second, size, cut) = (self.first, self.second, self.size, self.cut)
        let served = Box<Int>(0)
        server.route("/file") { request, writer in
            served.mutate { $0! += 1 }
            if served.value == 1 {
                writer.writeHead(status: 200, headers: firstHead + [("Content-Length", "\(size)")])
                writer.write(first.prefix(cut))
                writer.closeConnection()
            } else if request.header("Range") != nil {
                rangeReply(request, writer)
            } else {
                writer.writeHead(status: 200, headers: secondHead + [("Content-Length", "\(second.count)")])
                writer.write(second)
            }
        }
    }

    /// A `206` for the rest of `content` from `cut` on, with `headers` (`Content-Range` for the
    /// whole of `content`).
    private static func tail(of content: Data, from cut: Int, headers: [(String, String)]) -> @Sendable (ServerRequest, ResponseWriter) -> Void {
        { _, writer in
            let tail = content.suffix(from: cut)
            writer.writeHead(status: 206, headers: headers + [
                ("Content-Range", "bytes \(cut)-\(content.count - 1)/\(content.count)"), ("Content-Length", "\(tail.count)")])
            writer.write(tail)
        }
    }

    /// A `206` for the rest of `second`, with `headers`.
    private func tailOfSecond(headers: [(String, String)]) -> @Sendable (ServerRequest, ResponseWriter) -> Void {
        Self.tail(of: second, from: cut, headers: headers)
    }

    /// Cuts the first download, then downloads again from a new Network (another process: only
    /// the files carry over) and checks the result is exactly `expected`, with no file left but it.
    private func downloadTwice(from server: TestServer, expecting expected: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("data.bin")
        let request = Request<Data>.get(server.url("/file"))
        guard case .incompleteBody? = networkError(makeNetwork().downloadSynchronously(request, to: destination, timeout: 30)) else {
            return XCTFail("the first download is cut short", file: file, line: line)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination.path + ".partial")), first.prefix(cut), file: file, line: line)
        let result = makeNetwork().downloadSynchronously(request, to: destination, timeout: 30)
        XCTAssertEqual(try result.get(), destination.standardizedFileURL, file: file, line: line)
        let saved = try Data(contentsOf: destination)
        XCTAssertEqual(saved.count, expected.count, file: file, line: line)
        XCTAssertTrue(saved == expected, "the file is one version, whole, never a splice", file: file, line: line)
        XCTAssertEqual(fileNames(in: folder), ["data.bin"], file: file, line: line)
    }

    private var rangesAsked: (TestServer) -> [String] {
        { $0.receivedRequests.map { $0.header("Range") ?? "none" } }
    }

    func testA206OfAnotherETagStartsOverInsteadOfSplicing() throws {
        let server = try makeServer()
        routeChangingFile(on: server, firstHead: [("ETag", "\"v1\"")], secondHead: [("ETag", "\"v2\"")],
                          rangeReply: tailOfSecond(headers: [("ETag", "\"v2\"")]))
        try downloadTwice(from: server, expecting: second)
        XCTAssertEqual(rangesAsked(server), ["none", "bytes=\(cut)-", "none"])
        XCTAssertEqual(server.receivedRequests[1].header("If-Range"), "\"v1\"")
    }

    func testA206WithoutTheRecordedValidatorStartsOver() throws {
        let server = try makeServer()
        routeChangingFile(on: server, firstHead: [("ETag", "\"v1\"")], secondHead: [("ETag", "\"v2\"")],
                          rangeReply: tailOfSecond(headers: []))
        try downloadTwice(from: server, expecting: second)
        XCTAssertEqual(rangesAsked(server), ["none", "bytes=\(cut)-", "none"])
    }

    func testA206WithAWeakFormOfTheTagStartsOver() throws {
        let server = try makeServer()
        routeChangingFile(on: server, firstHead: [("ETag", "\"v1\"")], secondHead: [("ETag", "\"v2\"")],
                          rangeReply: tailOfSecond(headers: [("ETag", "W/\"v1\"")]))
        try downloadTwice(from: server, expecting: second)
        XCTAssertEqual(rangesAsked(server), ["none", "bytes=\(cut)-", "none"])
    }

    func testA206OfAnotherLastModifiedStartsOver() throws {
        let server = try makeServer()
        let before = "Mon, 01 Jan 2024 00:00:00 GMT"
        routeChangingFile(on: server, firstHead: [("Last-Modified", before)], secondHead: [("Last-Modified", "Tue, 02 Jan 2024 00:00:00 GMT")],
                          rangeReply: tailOfSecond(headers: [("Last-Modified", "Tue, 02 Jan 2024 00:00:00 GMT")]))
        try downloadTwice(from: server, expecting: second)
        XCTAssertEqual(rangesAsked(server), ["none", "bytes=\(cut)-", "none"])
        XCTAssertEqual(server.receivedRequests[1].header("If-Range"), before)
    }

    func testA206OfAnotherCompleteLengthStartsOver() throws {
        let server = try makeServer()
        // The same tag (a server that reuses it), but the file is now 5,000 bytes longer.
        let longer = randomBytes(size + 5_000, seed: 303)
        let serveTail = Self.tail(of: longer, from: cut, headers: [("ETag", "\"v1\"")])
        server.route("/file") { request, writer in
            guard request.header("Range") != nil else {
                writer.writeHead(status: 200, headers: [("ETag", "\"v1\""), ("Content-Length", "\(longer.count)")])
                return writer.write(longer)
            }
            serveTail(request, writer)
        }
        // The first reply, cut, came from the 2,000,000-byte version.
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("data.bin")
        try first.prefix(cut).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        let record = #"{"bytes":\#(cut),"total":\#(size),"url":"\#(server.url("/file").absoluteString)","validator":"\"v1\""}"#
        try Data(record.utf8).write(to: URL(fileURLWithPath: destination.path + ".partial.json"))

        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/file")), to: destination, timeout: 30).get())
        XCTAssertTrue(try Data(contentsOf: destination) == longer, "the new version, whole")
        XCTAssertEqual(rangesAsked(server), ["bytes=\(cut)-", "none"])
        XCTAssertEqual(fileNames(in: folder), ["data.bin"])
    }

    func testTheCompleteLengthIsRecordedAndAMatching206Resumes() throws {
        let server = try makeServer()
        routeChangingFile(on: server, firstHead: [("ETag", "\"v1\"")], secondHead: [("ETag", "\"v1\"")],
                          rangeReply: Self.tail(of: first, from: cut, headers: [("ETag", "\"v1\"")]))
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("data.bin")
        let request = Request<Data>.get(server.url("/file"))
        _ = makeNetwork().downloadSynchronously(request, to: destination, timeout: 30)
        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: destination.path + ".partial.json"))) as? [String: Any]
        XCTAssertEqual(sidecar?["total"] as? Int, size)
        XCTAssertEqual(sidecar?["validator"] as? String, "\"v1\"")
        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(request, to: destination, timeout: 30).get())
        XCTAssertTrue(try Data(contentsOf: destination) == first)
        XCTAssertEqual(rangesAsked(server), ["none", "bytes=\(cut)-"], "resumed, not started over")
    }

    func testAWeakTagIsNeverSentAsIfRangeButAStrongDateIs() throws {
        let server = try makeServer()
        let date = "Mon, 01 Jan 2024 00:00:00 GMT"
        let head = [("ETag", "W/\"v1\""), ("Last-Modified", date), ("Date", "Sun, 01 Dec 2024 00:00:00 GMT")]
        routeChangingFile(on: server, firstHead: head, secondHead: head, rangeReply: Self.tail(of: first, from: cut, headers: head))
        try downloadTwice(from: server, expecting: first)
        XCTAssertEqual(rangesAsked(server), ["none", "bytes=\(cut)-"])
        XCTAssertEqual(server.receivedRequests[1].header("If-Range"), date)
    }

    func testAWeakTagAloneIsNotResumable() throws {
        let server = try makeServer()
        routeChangingFile(on: server, firstHead: [("ETag", "W/\"v1\"")], secondHead: [("ETag", "W/\"v2\"")],
                          rangeReply: tailOfSecond(headers: [("ETag", "W/\"v2\"")]))
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("data.bin")
        let request = Request<Data>.get(server.url("/file"))
        _ = makeNetwork().downloadSynchronously(request, to: destination, timeout: 30)
        XCTAssertEqual(fileNames(in: folder), [], "nothing kept that could not be resumed safely")
        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(request, to: destination, timeout: 30).get())
        XCTAssertTrue(try Data(contentsOf: destination) == second)
        XCTAssertEqual(rangesAsked(server), ["none", "none"])
    }

    func testALastModifiedWithinTheSecondOfTheReplyIsNotAValidator() throws {
        let server = try makeServer()
        let now = "Mon, 01 Jan 2024 00:00:00 GMT"
        routeChangingFile(on: server, firstHead: [("Last-Modified", now), ("Date", now)], secondHead: [],
                          rangeReply: tailOfSecond(headers: []))
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("data.bin")
        _ = makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/file")), to: destination, timeout: 30)
        XCTAssertEqual(fileNames(in: folder), [])
    }

    // MARK: - Two downloads, one destination

    /// Serves `content` at `path`, ranges honoured; the first request's body pauses after
    /// 400,000 bytes until the test ends (then the connection closes).
    private func routePausingTheFirstRequest(_ path: String, on server: TestServer, content: Data) {
        let release = Gate()
        addTeardownBlock { release.open() }
        let requests = Box<Int>(0)
        server.route(path) { request, writer in
            requests.mutate { $0! += 1 }
            let stop: (offset: Int, wait: () -> Void)? = requests.value == 1 ? (400_000, { _ = release.wait(timeout: 30) }) : nil
            writer.serve(content, etag: "\"v\"", request: request, stop: stop)
        }
    }

    func testASecondDownloadToABusyDestinationIsRefusedAtOnceAndTheFirstCompletes() throws {
        let server = try makeServer()
        let content = first
        let release = Gate()
        addTeardownBlock { release.open() }
        // The body pauses after 400,000 bytes until the test lets it go on.
        server.route("/held") { _, writer in
            writer.writeHead(status: 200, headers: [("ETag", "\"held\""), ("Content-Length", "\(content.count)")])
            writer.write(content.prefix(400_000))
            release.wait(timeout: 30)
            writer.write(content.suffix(from: 400_000))
        }
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("held.bin")
        let request = Request<Data>.get(server.url("/held"))

        let writing = expectation(description: "the first download is writing")
        let done = expectation(description: "the first download completes")
        let reached = Box<Bool>(false)
        let outcome = Box<Result<URL, any Error>>()
        makeNetwork().download(request, to: destination) { progress in
            if progress.completedBytes >= 400_000, reached.value == false {
                reached.value = true
                writing.fulfill()
            }
        } completion: { result in
            outcome.value = result
            done.fulfill()
        }
        wait(for: [writing], timeout: 30)

        // Another Network (another process would be the same: the lock is the file system's).
        let second = makeNetwork().downloadSynchronously(request, to: destination, timeout: 30)
        guard case let .fileSystem(url, error)? = networkError(second) else { return XCTFail("expected a file-system error") }
        XCTAssertEqual(url.lastPathComponent, "held.bin.partial")
        XCTAssertEqual((error as? CocoaError)?.code, .fileLocking)
        XCTAssertTrue("\(second)".contains("Another download"), "\(second)")
        XCTAssertEqual(server.receivedRequests.count, 1, "the refused download sent nothing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination.path + ".partial"), "the first one's file is untouched")

        release.open()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(try outcome.value?.get(), destination.standardizedFileURL)
        XCTAssertTrue(try Data(contentsOf: destination) == content)
        XCTAssertEqual(fileNames(in: folder), ["held.bin"])
    }

    func testOnceTheFirstHasEndedTheSecondResumesItsPartialFile() throws {
        let server = try makeServer()
        let content = first
        routePausingTheFirstRequest("/held", on: server, content: content)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("held.bin")
        let request = Request<Data>.get(server.url("/held"))
        let done = expectation(description: "cancelled")
        let task = Box<NetworkTask>()
        task.value = makeNetwork().download(request, to: destination) { progress in
            if progress.completedBytes >= 400_000 { task.value?.cancel() }
        } completion: { _ in done.fulfill() }
        wait(for: [done], timeout: 30)
        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(request, to: destination, timeout: 30).get())
        XCTAssertTrue(try Data(contentsOf: destination) == content)
        XCTAssertEqual(server.receivedRequests.last?.header("Range"), "bytes=400000-", "the lock went with the first download's end")
    }

    func testADownloadStartedRightAfterACancelWaitsForTheCloseAndResumes() throws {
        let server = try makeServer()
        let content = first
        routePausingTheFirstRequest("/paused", on: server, content: content)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("paused.bin")
        let request = Request<Data>.get(server.url("/paused"))
        let writing = DispatchSemaphore(value: 0)
        let signalled = Box<Bool>(false)
        let task = makeNetwork().download(request, to: destination) { progress in
            if progress.completedBytes >= 400_000, signalled.value == false {
                signalled.value = true
                writing.signal()
            }
        } completion: { _ in }
        XCTAssertEqual(writing.wait(timeout: .now() + 30), .success)
        // A "pause" and a "resume" at once: the first download's file is still being closed.
        task.cancel()
        let result = makeNetwork().downloadSynchronously(request, to: destination, timeout: 30)
        XCTAssertEqual(try result.get(), destination.standardizedFileURL)
        XCTAssertTrue(try Data(contentsOf: destination) == content)
        XCTAssertEqual(server.receivedRequests.last?.header("Range").map { $0.hasPrefix("bytes=") }, true, "resumed, not started over")
    }
}
