import Courier
import Foundation
import XCTest

/// `courier download URL...`: files on disk, in parallel, interrupted and resumed.
final class CLIDownloadTests: CLITestCase {
    private static func partialSize(of destination: URL) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path + ".partial")
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    func testInterruptKeepsThePartialFileAndTheSameCommandResumesByteIdentical() throws {
        let server = try makeServer()
        let content = randomBytes(4_000_000, seed: 11)
        // The first request gets 1.5 MB, then the rest waits on a gate until the interrupted
        // process has exited: the interrupt lands mid-transfer however slow the machine (or the
        // sanitizer) is. Later requests are served normally, with Range support.
        let midway = Gate()
        addTeardownBlock { midway.open() }
        let requests = Box<Int>(0)
        server.route("/big.bin") { request, writer in
            requests.mutate { $0! += 1 }
            guard requests.value == 1 else { return writer.serve(content, etag: "\"v1\"", request: request) }
            writer.writeHead(status: 200, headers: [("Content-Length", "\(content.count)"), ("ETag", "\"v1\""), ("Accept-Ranges", "bytes")])
            writer.write(content.prefix(1_500_000))
            midway.wait(timeout: 60)
            writer.write(content.dropFirst(1_500_000))
        }
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("big.bin")
        let arguments = ["download", server.url("/big.bin").absoluteString]

        let first = try start(arguments, in: folder)
        // The partial file grows in 1 MB writes; once one is on disk the transfer is under way.
        XCTAssertTrue(waitUntil { Self.partialSize(of: destination) >= 1_000_000 })
        first.interrupt()
        let interrupted = first.finish()

        XCTAssertEqual(interrupted.status, 130, interrupted.stderrText)
        XCTAssertTrue(interrupted.stderrText.contains("interrupted"), interrupted.stderrText)
        XCTAssertTrue(interrupted.stderrText.contains("run the same command again to resume"), interrupted.stderrText)
        XCTAssertEqual(fileNames(in: folder), ["big.bin.partial", "big.bin.partial.json"])
        let kept = Self.partialSize(of: destination)
        XCTAssertGreaterThanOrEqual(kept, 1_000_000)
        XCTAssertLessThan(kept, content.count, "the interrupt must land mid-transfer")

        midway.open()
        let resumed = try courier(arguments[0], arguments[1], in: folder)
        XCTAssertEqual(resumed.status, 0, resumed.stderrText)
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(fileNames(in: folder), ["big.bin"])
        // Only the rest was asked for.
        let request = try lastRequest(to: "/big.bin", on: server)
        XCTAssertEqual(request.header("Range"), "bytes=\(kept)-")
        XCTAssertEqual(request.header("If-Range"), "\"v1\"")
    }

    func testParallelDownloadsRespectMaxConcurrent() throws {
        let server = try makeServer()
        // Each response waits until two requests are in at once: with the limit kept, the files
        // go in pairs; a third request in flight would show in maxConcurrentRequests.
        let pairs = Rendezvous(size: 2)
        let contents = (0..<4).map { randomBytes(500_000, seed: UInt64(20 + $0)) }
        for (index, content) in contents.enumerated() {
            server.route("/file\(index).bin") { request, writer in
                pairs.arrive()
                writer.serve(content, etag: "\"\(index)\"", request: request)
            }
        }
        let folder = try makeTemporaryDirectory()
        let urls = contents.indices.map { server.url("/file\($0).bin").absoluteString }

        let result = try start(["download", "--max-concurrent", "2", "-d", folder.path] + urls).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(server.maxConcurrentRequests, 2)
        XCTAssertEqual(server.requestCount, 4)
        for (index, content) in contents.enumerated() {
            XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("file\(index).bin")), content)
        }
        XCTAssertEqual(fileNames(in: folder), ["file0.bin", "file1.bin", "file2.bin", "file3.bin"])
    }

    func testFilesAreNamedAfterTheURLInTheCurrentOrGivenFolder() throws {
        let server = try makeServer()
        let content = randomBytes(10_000, seed: 4)
        try serveFile(content, at: "/reports/q3.pdf", on: server)
        let url = server.url("/reports/q3.pdf?version=2").absoluteString

        let current = try makeTemporaryDirectory()
        let inCurrent = try courier("download", url, in: current)
        XCTAssertEqual(inCurrent.status, 0, inCurrent.stderrText)
        XCTAssertEqual(fileNames(in: current), ["q3.pdf"])

        // -d creates the folder; -o names the file.
        let parent = try makeTemporaryDirectory()
        let folder = parent.appendingPathComponent("new/sub")
        let inFolder = try courier("download", url, "-d", folder.path)
        XCTAssertEqual(inFolder.status, 0, inFolder.stderrText)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("q3.pdf")), content)

        let named = try courier("download", url, "-o", parent.appendingPathComponent("renamed.pdf").path)
        XCTAssertEqual(named.status, 0, named.stderrText)
        XCTAssertEqual(try Data(contentsOf: parent.appendingPathComponent("renamed.pdf")), content)
    }

    func testAFailedFileIsReportedAndTheOthersStillArrive() throws {
        let server = try makeServer()
        let content = randomBytes(50_000, seed: 8)
        try serveFile(content, at: "/good.bin", on: server)
        let folder = try makeTemporaryDirectory()
        let result = try courier("download", "-d", folder.path, server.url("/missing.bin").absoluteString,
                                 server.url("/good.bin").absoluteString)
        XCTAssertEqual(result.status, 22, result.stderrText)
        XCTAssertTrue(result.stderrText.contains("missing.bin: HTTP 404 Not Found"), result.stderrText)
        XCTAssertTrue(result.stderrText.contains("1 of 2 files downloaded"), result.stderrText)
        XCTAssertEqual(fileNames(in: folder), ["good.bin"], "an error page is never saved as the file")
    }

    /// A server that compresses although the tool asks for `identity`: on the curl engine the
    /// file is saved as sent, as curl does without `--compressed` (a gzip bomb stays its size on
    /// disk); URLSession cannot help decoding it (within the library's decompression limit).
    func testAGzipServedTextFileIsSavedAsSentOnCurlAndDecodedOnURLSession() throws {
        let server = try makeServer()
        server.route("/notes.txt") { _, writer in
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain", "ETag": "\"t\""],
                           body: Gzip.fixture)
        }
        let url = server.url("/notes.txt").absoluteString
        let folder = try makeTemporaryDirectory()
        // The engine the command picks: the same environment as this process.
        let stored = Network().engine == .curl ? Gzip.fixture : Data(Gzip.fixtureText.utf8)

        let downloaded = try courier("download", url, in: folder)
        XCTAssertEqual(downloaded.status, 0, downloaded.stderrText)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("notes.txt")), stored)

        XCTAssertEqual(fileNames(in: folder), ["notes.txt"], "no partial file or sidecar left")
    }


    func testARequestDecodesOnlyWithCompressedAsCurl() throws {
        let server = try makeServer()
        // A server that compresses whether asked or not; the route notes what was offered.
        let offered = Locked<[String?]>([])
        server.route("/notes.txt") { request, writer in
            offered.withLock { $0.append(request.header("Accept-Encoding")) }
            writer.respond(status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain"], body: Gzip.fixture)
        }
        let url = server.url("/notes.txt").absoluteString
        let folder = try makeTemporaryDirectory()
        let saved = try courier(url, "-o", folder.appendingPathComponent("saved.gz").path)
        XCTAssertEqual(saved.status, 0, saved.stderrText)
        let printed = try courier(url)
        XCTAssertEqual(printed.status, 0, printed.stderrText)
        let decoded = try courier("--compressed", url)
        XCTAssertEqual(decoded.status, 0, decoded.stderrText)
        if Network.Engine.automatic.resolved == .curl {
            // Without --compressed nothing is offered and the bytes are kept as they came.
            XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("saved.gz")), Gzip.fixture)
            XCTAssertEqual(printed.stdout, Gzip.fixture)
            XCTAssertEqual(offered.current.prefix(2).map { $0 == nil }, [true, true], "\(offered.current)")
        } else {
            // URLSession always offers its codings and decodes (Docs/CommandLine.md).
            XCTAssertEqual(printed.stdoutText, Gzip.fixtureText)
        }
        XCTAssertEqual(decoded.stdoutText, Gzip.fixtureText)
        XCTAssertNotNil(offered.current.last ?? nil, "--compressed offers the codings")
    }
}
