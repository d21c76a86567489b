import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest

/// What downloads and uploads do to the file system when a server, a URL or another user of the
/// same folder is hostile: names stay inside the download folder, devices are written and never
/// replaced, planted links are never followed, temporary files are private. Each test was an
/// attack that worked before (see Sources/Courier/Courier.docc/Security.md).
final class FileSystemSafetyTests: CLITestCase {
    // MARK: - Helpers

    /// `lstat` of `url`: the link itself, not what it points to; nil if nothing is there.
    private func status(of url: URL) -> stat? {
        var result = stat()
        return lstat(url.path, &result) == 0 ? result : nil
    }

    private func fileType(of url: URL) -> mode_t? {
        status(of: url).map { $0.st_mode & S_IFMT }
    }

    private func permissions(of url: URL) -> mode_t? {
        status(of: url).map { $0.st_mode & 0o7777 }
    }

    /// The process's umask, read without changing it (Linux).
    private func currentUmask() throws -> mode_t {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try XCTUnwrap(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }

    /// Serves `content` resumably (Range, If-Range) at `path`.
    private func serve(_ content: Data, at path: String, on server: TestServer, etag: String = "\"v1\"") {
        server.route(path) { request, writer in writer.serve(content, etag: etag, request: request) }
    }

    /// A sidecar claiming that `DEST.partial` holds the first `bytes` bytes of `url`.
    private func plantSidecar(at destination: URL, url: URL, bytes: Int) throws {
        let record = #"{"bytes":\#(bytes),"url":"\#(url.absoluteString)","validator":"\"v1\""}"#
        try Data(record.utf8).write(to: URL(fileURLWithPath: destination.path + ".partial.json"))
    }

    /// A file that must come out of the test unchanged.
    private func makeVictim(in folder: URL, content: String = "the victim's own bytes\n") throws -> (URL, Data) {
        let victim = folder.appendingPathComponent("victim.txt")
        try Data(content.utf8).write(to: victim)
        return (victim, Data(content.utf8))
    }

    // MARK: - 1. File names taken from URLs

    func testURLFileNamesStayInsideTheDownloadFolder() throws {
        let server = try makeServer()
        let content = randomBytes(20_000, seed: 61)
        let longName = String(repeating: "n", count: 245) + ".bin"
        let expected = [
            "/f/..%2F..%2Fpwn": ".._.._pwn",
            "/f/%2E%2E%2F%2E%2E%2Fpwn2": ".._.._pwn2",
            "/f/a%2Fb": "a_b",
            "/f/bad%0Aname%1B%5B2J.txt": "bad_name_[2J.txt",
            "/f/" + longName: String(repeating: "n", count: 238) + ".bin",
        ]
        for path in expected.keys { serve(content, at: path, on: server) }
        // The download folder lies deep enough that `../../pwn` from it stays inside `base`.
        let base = try makeTemporaryDirectory()
        let folder = base.appendingPathComponent("a/b/out")
        let urls = expected.keys.sorted().map { "http://127.0.0.1:\(server.port)\($0)" }

        let result = try start(["download", "--progress", "-d", folder.path] + urls).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(fileNames(in: folder), expected.values.sorted())
        for name in expected.values {
            XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent(name)), content, name)
        }
        XCTAssertEqual(fileNames(in: base), ["a"])
        XCTAssertEqual(fileNames(in: base.appendingPathComponent("a")), ["b"])
        XCTAssertEqual(fileNames(in: base.appendingPathComponent("a/b")), ["out"])
        XCTAssertFalse(result.stderr.contains(0x1B), "no escape character reaches the terminal: \(result.stderrText)")
    }

    func testNamesAndURLsArePrintedWithTheirControlCharactersEscaped() throws {
        let server = try makeServer()
        let content = randomBytes(1_000, seed: 62)
        serve(content, at: "/x%1B%5B2J%0Ay", on: server)
        let folder = try makeTemporaryDirectory()
        let url = "http://127.0.0.1:\(server.port)/x%1B%5B2J%0Ay"

        // The progress line of a body printed to stdout is labelled with the URL's decoded name.
        let printed = try courier("--progress", url)
        XCTAssertEqual(printed.status, 0, printed.stderrText)
        XCTAssertEqual(printed.stdout, content)
        XCTAssertFalse(printed.stderr.contains(0x1B), printed.stderrText)
        XCTAssertTrue(printed.stderrText.contains(#"x\x1B[2J\ny "#), printed.stderrText)

        // A file name given with -o, in the progress line and in an error message.
        let named = folder.appendingPathComponent("out\u{1B}]0;owned\u{07}.bin")
        let saved = try courier("--progress", url, "-o", named.path)
        XCTAssertEqual(saved.status, 0, saved.stderrText)
        XCTAssertEqual(try Data(contentsOf: named), content)
        XCTAssertFalse(saved.stderr.contains(0x1B), saved.stderrText)
        XCTAssertTrue(saved.stderrText.contains(#"out\x1B]0;owned\x07.bin"#), saved.stderrText)

        let missing = folder.appendingPathComponent("no\u{1B}[31mfolder/file.bin")
        let failed = try courier("download", url, "-o", missing.path)
        XCTAssertEqual(failed.status, 23, failed.stderrText)
        XCTAssertFalse(failed.stderr.contains(0x1B), failed.stderrText)
        XCTAssertTrue(failed.stderrText.contains(#"no\x1B[31mfolder"#), failed.stderrText)
    }

    func testADestinationNameTooLongForItsSidecarFailsBeforeAnythingIsWritten() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        // Fits on its own (250 bytes), but `.partial.json` takes it past 255.
        let destination = folder.appendingPathComponent(String(repeating: "L", count: 250))
        let result = makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, timeout: 30)
        guard case let .fileSystem(url, error)? = networkError(result) else { return XCTFail("expected fileSystem") }
        XCTAssertEqual(url, destination.standardizedFileURL)
        XCTAssertEqual((error as? POSIXError)?.code, .ENAMETOOLONG)
        XCTAssertEqual(server.requestCount, 0, "refused before anything was asked")
        XCTAssertEqual(fileNames(in: folder), [], "no stray .partial file")
    }

    // MARK: - 2. Devices and FIFOs are written, never replaced

    func testOutputToDevNullWritesIntoTheDevice() throws {
        let server = try makeServer().withStandardRoutes()
        let devNull = URL(fileURLWithPath: "/dev/null")
        XCTAssertEqual(fileType(of: devNull), S_IFCHR)

        let result = try courier(server.url("/bytes?n=300000").absoluteString, "-o", "/dev/null")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(fileType(of: devNull), S_IFCHR, "/dev/null is still the device")
        XCTAssertNil(status(of: URL(fileURLWithPath: "/dev/null.partial")))
        XCTAssertNil(status(of: URL(fileURLWithPath: "/dev/null.partial.json")))

        // An error page saved without --fail goes into the device as well.
        let page = try courier(server.url("/status?code=404").absoluteString, "-o", "/dev/null")
        XCTAssertEqual(page.status, 0, page.stderrText)
        XCTAssertEqual(fileType(of: devNull), S_IFCHR, "/dev/null is still the device")
    }

    func testOutputToAFIFODeliversTheExactBytes() throws {
        let server = try makeServer()
        let content = randomBytes(3_000_000, seed: 63)
        serve(content, at: "/stream", on: server)
        let folder = try makeTemporaryDirectory()
        let fifo = folder.appendingPathComponent("pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let reader = try FIFOReader(fifo, spareLinkIn: try makeTemporaryDirectory())

        let result = try courier(server.url("/stream").absoluteString, "-o", fifo.path)
        let received = reader.finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(received?.count, content.count)
        XCTAssertEqual(received, content)
        XCTAssertEqual(fileType(of: fifo), S_IFIFO, "the FIFO is still a FIFO")
        XCTAssertEqual(fileNames(in: folder), ["pipe"], "no .partial file, no sidecar")
    }

    func testAFIFOWhoseReaderLeavesEndsTheCommandWithAWriteErrorNotSIGPIPE() throws {
        let server = try makeServer()
        serve(randomBytes(3_000_000, seed: 70), at: "/stream", on: server)
        let folder = try makeTemporaryDirectory()
        let fifo = folder.appendingPathComponent("pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let reader = try FIFOReader(fifo, spareLinkIn: try makeTemporaryDirectory(), limit: 10)

        // The test process ignores SIGPIPE (for its server), and an ignored signal stays ignored
        // across exec: `env` gives courier the default action, as a shell would.
        let env = URL(fileURLWithPath: "/usr/bin/env")
        guard FileManager.default.isExecutableFile(atPath: env.path) else { throw XCTSkip("no /usr/bin/env") }
        let result = try RunningCourier(executable: env, arguments: ["--default-signal=PIPE", try executable().path,
                                                                     server.url("/stream").absoluteString, "-o", fifo.path],
                                        directory: nil, stdin: nil).finish()
        XCTAssertEqual(reader.finish()?.count, 10)
        XCTAssertEqual(result.status, 23, "as curl: a write error, not death by SIGPIPE. \(result.stderrText)")
        XCTAssertTrue(result.stderrText.contains("Broken pipe"), result.stderrText)
        XCTAssertEqual(fileType(of: fifo), S_IFIFO)
    }

    /// The library's `download(_:to:)` behaves as `-o` does: a device or FIFO is written directly,
    /// with or without `.replaceExisting` (nothing is replaced).
    func testLibraryDownloadWritesIntoADeviceOrAFIFO() throws {
        let server = try makeServer().withStandardRoutes()
        let content = randomBytes(1_500_000, seed: 64)
        serve(content, at: "/stream", on: server)
        let network = makeNetwork()
        let devNull = URL(fileURLWithPath: "/dev/null")

        XCTAssertEqual(try network.downloadSynchronously(Request<Data>.get(server.url("/bytes?n=100000")), to: devNull, timeout: 30).get(), devNull)
        XCTAssertEqual(fileType(of: devNull), S_IFCHR, "/dev/null is still the device")
        XCTAssertNil(status(of: URL(fileURLWithPath: "/dev/null.partial")))

        let folder = try makeTemporaryDirectory()
        let fifo = folder.appendingPathComponent("pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let reader = try FIFOReader(fifo, spareLinkIn: try makeTemporaryDirectory())
        let result = network.downloadSynchronously(Request<Data>.get(server.url("/stream")), to: fifo, timeout: 30)
        let received = reader.finish()
        XCTAssertEqual(try result.get(), fifo.standardizedFileURL)
        XCTAssertEqual(received, content)
        XCTAssertEqual(fileType(of: fifo), S_IFIFO)
        XCTAssertEqual(fileNames(in: folder), ["pipe"])
    }

    func testADeviceDownloadThatBreaksOffIsNotRetried() throws {
        let server = try makeServer()
        server.routeCuttingBody("/cut", announcing: 100_000, sending: 40_000)
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01))
        let result = network.downloadSynchronously(Request<Data>.get(server.url("/cut")), to: URL(fileURLWithPath: "/dev/null"), timeout: 30)
        switch networkError(result) {
        case .incompleteBody?, .transport?: break
        default: XCTFail("expected the cut to be reported, got \(String(describing: result))")
        }
        XCTAssertEqual(server.requestCount, 1, "bytes given to a device cannot be taken back: a retry would repeat them")
    }

    // MARK: - 3. Planted links are never followed

    func testAPlantedPartialSymlinkIsRemovedNotWrittenThrough() throws {
        let server = try makeServer()
        let content = randomBytes(500_000, seed: 65)
        serve(content, at: "/file", on: server)
        let folder = try makeTemporaryDirectory()
        let (victim, original) = try makeVictim(in: folder)
        let destination = folder.appendingPathComponent("file.bin")
        XCTAssertEqual(symlink(victim.path, destination.path + ".partial"), 0)
        try plantSidecar(at: destination, url: server.url("/file"), bytes: original.count)

        let result = makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/file")), to: destination, timeout: 30)
        XCTAssertEqual(try result.get(), destination.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: victim), original, "the link's target is untouched")
        XCTAssertEqual(fileType(of: destination), S_IFREG, "the destination is a file, not a link")
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertNil(try lastRequest(to: "/file", on: server).header("Range"), "nothing is resumed from a link")
        XCTAssertEqual(fileNames(in: folder), ["file.bin", "victim.txt"])
    }

    func testAPlantedHardLinkedPartialIsNotResumedInto() throws {
        let server = try makeServer()
        let content = randomBytes(500_000, seed: 66)
        serve(content, at: "/file", on: server)
        let folder = try makeTemporaryDirectory()
        let (victim, original) = try makeVictim(in: folder)
        let destination = folder.appendingPathComponent("file.bin")
        XCTAssertEqual(link(victim.path, destination.path + ".partial"), 0)
        try plantSidecar(at: destination, url: server.url("/file"), bytes: original.count)

        XCTAssertNoThrow(try makeNetwork().downloadSynchronously(Request<Data>.get(server.url("/file")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: victim), original, "the other name of the file is untouched")
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertNil(try lastRequest(to: "/file", on: server).header("Range"))
        XCTAssertEqual(fileNames(in: folder), ["file.bin", "victim.txt"])
    }

    func testAPlantedSidecarSymlinkIsNeitherReadNorWrittenThrough() throws {
        let server = try makeServer()
        let content = randomBytes(2_000_000, seed: 67)
        // The first response stops half-way until the test ends; the client cancels there.
        let release = Gate()
        addTeardownBlock { release.open() }
        let requests = Box<Int>(0)
        server.route("/file") { request, writer in
            requests.mutate { $0! += 1 }
            let first = requests.value == 1
            writer.serve(content, etag: "\"v1\"", request: request, stop: first ? (offset: 1_000_000, wait: { _ = release.wait(timeout: 30) }) : nil)
        }
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("file.bin")
        let sidecar = URL(fileURLWithPath: destination.path + ".partial.json")
        // The link points at a file that reads as a valid record for a planted partial file.
        let victim = folder.appendingPathComponent("victim.json")
        let record = Data(#"{"bytes":10,"url":"\#(server.url("/file").absoluteString)","validator":"\"v1\""}"#.utf8)
        try record.write(to: victim)
        try Data(repeating: 0x58, count: 10).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        XCTAssertEqual(symlink(victim.path, sidecar.path), 0)

        // Cancelled half-way: a sidecar is written, as a file of its own.
        let network = makeNetwork()
        let done = expectation(description: "cancelled")
        let task = Box<NetworkTask>()
        task.value = network.download(Request<Data>.get(server.url("/file")), to: destination) { progress in
            if progress.completedBytes >= 1_000_000 { task.value?.cancel() }
        } completion: { result in
            if case .failure(NetworkError.cancelled) = result {} else { XCTFail("expected cancelled, got \(result)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertNil(server.receivedRequests.first?.header("Range"), "the record behind the link was not used")
        XCTAssertEqual(try Data(contentsOf: victim), record, "the link's target is untouched")
        XCTAssertEqual(fileType(of: sidecar), S_IFREG, "the link was replaced by a file")
        XCTAssertEqual(permissions(of: sidecar), 0o600, "the sidecar, which records the URL, is private")

        // And the resume from that sidecar completes the file.
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/file")), to: destination, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(server.receivedRequests.last?.header("Range"), "bytes=1000000-")
        XCTAssertEqual(fileNames(in: folder), ["file.bin", "victim.json"])
    }

    func testALinkAtTheDestinationIsReplacedNeverWrittenThrough() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let (victim, original) = try makeVictim(in: folder)
        let destination = folder.appendingPathComponent("hello.txt")
        let network = makeNetwork()

        // A link, even one to nothing, is something at the destination: not replaced unless asked.
        XCTAssertEqual(symlink(folder.appendingPathComponent("nowhere").path, destination.path), 0)
        guard case .destinationExists? = networkError(network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, timeout: 30)) else {
            return XCTFail("expected destinationExists")
        }
        XCTAssertEqual(fileType(of: destination), S_IFLNK)
        XCTAssertEqual(server.requestCount, 0)

        // Replacing: the link itself is replaced by the file; what it points to is untouched.
        XCTAssertEqual(unlink(destination.path), 0)
        XCTAssertEqual(symlink(victim.path, destination.path), 0)
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: destination, options: .replaceExisting, timeout: 30).get())
        XCTAssertEqual(fileType(of: destination), S_IFREG)
        XCTAssertEqual(try Data(contentsOf: destination), Data("hello".utf8))
        XCTAssertEqual(try Data(contentsOf: victim), original)
    }

    func testAPartialFileSwappedForALinkMidDownloadIsNotMovedIntoPlace() throws {
        let server = try makeServer()
        let content = randomBytes(300_000, seed: 68)
        let midway = Gate()
        addTeardownBlock { midway.open() }
        server.route("/file") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "\(content.count)"), ("ETag", "\"v1\"")])
            writer.write(content.prefix(100_000))
            midway.wait(timeout: 30)
            writer.write(content.dropFirst(100_000))
        }
        let folder = try makeTemporaryDirectory()
        let (victim, original) = try makeVictim(in: folder)
        let destination = folder.appendingPathComponent("file.bin")
        let partial = destination.path + ".partial"

        let started = Gate()
        let done = expectation(description: "download")
        let outcome = Box<Result<URL, any Error>>()
        makeNetwork().download(Request<Data>.get(server.url("/file")), to: destination) { _ in
            started.open()  // the first event comes once the partial file exists
        } completion: { result in
            outcome.value = result
            done.fulfill()
        }
        XCTAssertTrue(started.wait(timeout: 10))
        XCTAssertEqual(unlink(partial), 0)
        XCTAssertEqual(symlink(victim.path, partial), 0)
        midway.open()
        wait(for: [done], timeout: 30)

        guard case let .fileSystem(url, error)? = networkError(outcome.value) else { return XCTFail("expected fileSystem, got \(String(describing: outcome.value))") }
        XCTAssertEqual(url.path, partial)
        XCTAssertTrue(error.localizedDescription.contains("replaced while it was being written"), error.localizedDescription)
        XCTAssertNil(status(of: destination), "the link was not moved into place")
        XCTAssertEqual(try Data(contentsOf: victim), original)
    }

    // MARK: - 7. Modes of temporary and replaced files

    func testTheMultipartTemporaryFileIsOwnerOnlyWhileTheUploadRuns() throws {
        let server = try makeServer()
        let arrived = Gate()
        let gate = holdRequests(at: "/upload", on: server, text: "ok") { arrived.open() }
        let temporary = FileManager.default.temporaryDirectory
        let before = Set(fileNames(in: temporary).filter { $0.hasPrefix("courier-upload-") })
        var form = MultipartForm()
        form.addData(name: "secret", data: randomBytes(50_000, seed: 69), filename: "secret.bin")

        let done = expectation(description: "upload")
        makeNetwork().schedule(Request<Data>(method: .post, url: server.url("/upload"), body: .multipart(form))) { result in
            XCTAssertEqual(try? result.get(), Data("ok".utf8))
            done.fulfill()
        }
        XCTAssertTrue(arrived.wait(timeout: 10))
        let files = fileNames(in: temporary).filter { $0.hasPrefix("courier-upload-") && !before.contains($0) }
        XCTAssertEqual(files.count, 1, "\(files)")
        for name in files {
            XCTAssertEqual(permissions(of: temporary.appendingPathComponent(name)), 0o600, "only its owner may read the form")
        }
        gate.open()
        wait(for: [done], timeout: 10)
    }

    func testAReplacedFileKeepsItsModeAndANewFileFollowsTheUmask() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let network = makeNetwork()
        let secret = folder.appendingPathComponent("secret.txt")
        try Data("old".utf8).write(to: secret)
        XCTAssertEqual(chmod(secret.path, 0o600), 0)

        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: secret, options: .replaceExisting, timeout: 30).get())
        XCTAssertEqual(try Data(contentsOf: secret), Data("hello".utf8))
        XCTAssertEqual(permissions(of: secret), 0o600)

        let shared = folder.appendingPathComponent("shared.txt")
        try Data("old".utf8).write(to: shared)
        XCTAssertEqual(chmod(shared.path, 0o664), 0)
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: shared, options: .replaceExisting, timeout: 30).get())
        XCTAssertEqual(permissions(of: shared), 0o664, "kept exactly, whatever the umask")

        let fresh = folder.appendingPathComponent("new.txt")
        XCTAssertNoThrow(try network.downloadSynchronously(Request<Data>.get(server.url("/hello")), to: fresh, timeout: 30).get())
        XCTAssertEqual(permissions(of: fresh), 0o666 & ~(try currentUmask()))
    }

    func testOutputOverAPrivateFileKeepsItPrivateForTheBodyAndForAnErrorPage() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let secret = folder.appendingPathComponent("secret.txt")
        try Data("old".utf8).write(to: secret)
        XCTAssertEqual(chmod(secret.path, 0o600), 0)

        let body = try courier(server.url("/hello").absoluteString, "-o", secret.path)
        XCTAssertEqual(body.status, 0, body.stderrText)
        XCTAssertEqual(try Data(contentsOf: secret), Data("hello".utf8))
        XCTAssertEqual(permissions(of: secret), 0o600)

        let page = try courier(server.url("/status?code=404").absoluteString, "-o", secret.path)
        XCTAssertEqual(page.status, 0, page.stderrText)
        XCTAssertEqual(try Data(contentsOf: secret), Data("status 404 body".utf8))
        XCTAssertEqual(permissions(of: secret), 0o600)
        XCTAssertEqual(fileNames(in: folder), ["secret.txt"])
    }
}

/// Reads a FIFO to its end (or to `limit` bytes, then closes it) on a thread of its own, as
/// `cat pipe` (or `head -c`) would.
///
/// The reader opens the FIFO through a second hard link, so that it can still be released if the
/// code under test never opens the FIFO (or replaces it): ``finish(timeout:)`` opens and closes
/// the write end, which a reader still waiting for a writer sees as an empty stream.
final class FIFOReader: @unchecked Sendable {
    // `@unchecked`: the bytes are in a Box; the rest is constant.
    private let spare: URL
    private let bytes = Box<Data>()
    private let done = DispatchSemaphore(value: 0)

    init(_ fifo: URL, spareLinkIn folder: URL, limit: Int = .max) throws {
        spare = folder.appendingPathComponent("fifo-link")
        guard link(fifo.path, spare.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let path = spare.path
        Thread { [bytes, done] in
            var data = Data()
            let fd = open(path, O_RDONLY)  // waits for a writer
            if fd >= 0 {
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while data.count < limit {
                    let count = read(fd, &chunk, min(chunk.count, limit - data.count))
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }
                    data.append(contentsOf: chunk[0..<count])
                }
                close(fd)
            }
            bytes.value = data
            done.signal()
        }.start()
    }

    /// The bytes read, once the writer has closed the FIFO (or nil after `timeout`).
    func finish(timeout: TimeInterval = 30) -> Data? {
        let fd = open(spare.path, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return bytes.value
    }
}
