import Courier
import Foundation
import XCTest

/// `-C` (resume any file), `-D` and `-i` with `-L` (every head, as on the wire), `--etag-save` and
/// `--etag-compare`.
final class CLIResumeAndHeadTests: CLITestCase {
    func testContinueAtResumesAnyFileFromItsSize() throws {
        let server = try makeServer()
        let content = randomBytes(20_000, seed: 22)
        try serveFile(content, at: "/data.bin", on: server)
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("data.bin")
        // A file another tool left half-way: not courier's .partial.
        try content.prefix(7_000).write(to: file)
        let resumed = try start(["-s", "-C", "-", "-O", server.url("/data.bin").absoluteString], in: folder).finish()
        XCTAssertEqual(resumed.status, 0, resumed.stderrText)
        XCTAssertEqual(try lastRequest(to: "/data.bin", on: server).header("Range"), "bytes=7000-")
        XCTAssertEqual(try Data(contentsOf: file), content)

        // Complete already: the server's 416 means success, nothing written.
        let complete = try start(["-s", "-C", "-", "-o", "data.bin", server.url("/data.bin").absoluteString], in: folder).finish()
        XCTAssertEqual(complete.status, 0, complete.stderrText)
        XCTAssertEqual(try Data(contentsOf: file), content)

        // An offset given: the rest from there, in a new file.
        let offset = try start(["-s", "-C", "19990", "-o", "tail.bin", server.url("/data.bin").absoluteString], in: folder).finish()
        XCTAssertEqual(offset.status, 0, offset.stderrText)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("tail.bin")), content.suffix(10))
    }

    func testContinueAtAServerWithoutRangesExits33AndWritesNothing() throws {
        let server = try makeServer()
        server.route("/whole") { _, writer in writer.respond(status: 200, text: "always the whole body") }
        let folder = try makeTemporaryDirectory()
        try Data("half".utf8).write(to: folder.appendingPathComponent("whole"))
        let result = try start(["-s", "-C", "-", "-O", server.url("/whole").absoluteString], in: folder).finish()
        XCTAssertEqual(result.status, 33, "curl's 'cannot resume'")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("whole"), encoding: .utf8), "half")
        if let curl = try RealCurl.run(["-s", "-C", "-", "-o", folder.appendingPathComponent("whole").path, server.url("/whole").absoluteString]) {
            XCTAssertEqual(curl.status, 33)
        }
    }

    /// A server answering `Range: bytes=700000-` with the bytes from elsewhere: a `206` whose
    /// `Content-Range` starts 1,000 bytes early or late, a `206` with no `Content-Range` and the
    /// whole body, a `206` whose `Content-Range` names no range (`bytes */N`), and a good `206`.
    /// The first three used to be appended to a 700,000-byte file: 2,001,000, 1,999,000 and
    /// 2,700,000 bytes, exit 0.
    private func makeHostileRangeServer(_ content: Data, cutAt cut: Int) throws -> TestServer {
        let server = try makeServer()
        let total = content.count
        server.route("/cut") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", String(total))])
            writer.write(content.prefix(cut))
            writer.closeConnection()
        }
        @Sendable func asked(_ request: ServerRequest) -> Int {
            Int(request.header("Range")?.dropFirst("bytes=".count).dropLast() ?? "") ?? 0
        }
        @Sendable func partial(from requested: Int, _ writer: ResponseWriter) {
            // Clamped: a file that grew wrongly asks for bytes past the end.
            let start = min(max(requested, 0), total - 1)
            writer.respond(status: 206, headers: ["Content-Range": "bytes \(start)-\(total - 1)/\(total)"], body: content.suffix(from: start))
        }
        server.route("/early") { request, writer in partial(from: asked(request) - 1_000, writer) }
        server.route("/late") { request, writer in partial(from: asked(request) + 1_000, writer) }
        server.route("/good") { request, writer in partial(from: asked(request), writer) }
        server.route("/whole") { _, writer in writer.respond(status: 206, body: content) }
        server.route("/star") { _, writer in writer.respond(status: 206, headers: ["Content-Range": "bytes */\(total)"], body: content) }
        return server
    }

    func testContinueAtRefusesA206ThatDoesNotStartWhereTheFileEnds() throws {
        let content = randomBytes(2_000_000, seed: 35)
        let server = try makeHostileRangeServer(content, cutAt: 700_000)
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("f")
        let cut = try start(["-s", "-o", "f", server.url("/cut").absoluteString], in: folder).finish()
        XCTAssertEqual(cut.status, 18, cut.stderrText)
        let partial = try Data(contentsOf: file)
        XCTAssertEqual(partial, content.prefix(700_000))

        for path in ["/early", "/late", "/whole", "/star"] {
            let url = server.url(path).absoluteString
            for offset in ["-", "700000"] {
                let result = try start(["-sS", "-C", offset, "-o", "f", url], in: folder).finish()
                XCTAssertEqual(result.status, 33, "-C \(offset) \(path): curl's 'cannot resume'; \(result.stderrText)")
                XCTAssertTrue(result.stderrText.contains("cannot resume"), result.stderrText)
                XCTAssertEqual(try lastRequest(to: path, on: server).header("Range"), "bytes=700000-")
                XCTAssertEqual(try Data(contentsOf: file), partial, "-C \(offset) \(path): the file is left as it was, byte for byte")
            }
            // curl 7.88.1 refuses the first three alike (it appends the whole body after `*/N`).
            if path != "/star", let curl = try RealCurl.run(["-s", "-C", "-", "-o", file.path, url]) {
                XCTAssertEqual(curl.status, 33, path)
                XCTAssertEqual(try Data(contentsOf: file), partial, "curl leaves \(path)'s file as it was too")
            }
        }

        let good = try start(["-s", "-C", "-", "-o", "f", server.url("/good").absoluteString], in: folder).finish()
        XCTAssertEqual(good.status, 0, good.stderrText)
        XCTAssertEqual(try Data(contentsOf: file), content, "a 206 from where the file ends completes it")
    }

    /// curl judges the answer by its `Content-Range`, not its status: a `200` that starts where
    /// the file ends is appended, and one as long as the file already is means it is complete.
    func testContinueAtJudgesTheAnswerByWhereItStartsAsCurlDoes() throws {
        let server = try makeServer()
        let content = randomBytes(30_000, seed: 36)
        server.route("/ranged200") { request, writer in
            let start = Int(request.header("Range")?.dropFirst("bytes=".count).dropLast() ?? "") ?? 0
            writer.respond(status: 200, headers: ["Content-Range": "bytes \(start)-29999/30000"], body: content.suffix(from: start))
        }
        server.route("/same-length") { _, writer in writer.respond(status: 200, body: content.prefix(10_000)) }
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("f")

        try content.prefix(10_000).write(to: file)
        let complete = try start(["-s", "-C", "-", "-o", "f", server.url("/same-length").absoluteString], in: folder).finish()
        XCTAssertEqual(complete.status, 0, "as long as the file: complete already; \(complete.stderrText)")
        XCTAssertEqual(try Data(contentsOf: file), content.prefix(10_000))

        let ranged = try start(["-s", "-C", "-", "-o", "f", server.url("/ranged200").absoluteString], in: folder).finish()
        XCTAssertEqual(ranged.status, 0, ranged.stderrText)
        XCTAssertEqual(try Data(contentsOf: file), content)
        if let curl = try RealCurl.run(["-s", "-C", "10000", "-o", folder.appendingPathComponent("curl").path,
                                        server.url("/ranged200").absoluteString]) {
            XCTAssertEqual(curl.status, 0)
            XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("curl")), content.suffix(from: 10_000))
        }
    }

    func testDumpHeaderAndIncludeWriteEveryHeadWithCRLF() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/moved") { _, writer in writer.respond(status: 302, headers: ["Location": "/hello"], text: "moved") }
        let folder = try makeTemporaryDirectory()
        let result = try start(["-sL", "-D", "heads.txt", "-i", server.url("/moved").absoluteString], in: folder).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        let heads = try String(contentsOf: folder.appendingPathComponent("heads.txt"), encoding: .utf8)
        XCTAssertTrue(heads.hasPrefix("HTTP/1.1 302 Found\r\n"), heads)
        XCTAssertTrue(heads.contains("Location: /hello\r\n\r\nHTTP/1.1 200 OK\r\n"), heads)
        XCTAssertTrue(heads.hasSuffix("\r\n\r\n"), heads)
        XCTAssertEqual(result.stdoutText, heads + "hello", "-i writes the same heads before the body; the 302's body is not written")

        let toStdout = try courier("-s", "-D", "-", "-o", "/dev/null", server.url("/hello").absoluteString)
        XCTAssertTrue(toStdout.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n") && toStdout.stdoutText.hasSuffix("\r\n\r\n"), toStdout.stdoutText)
    }

    func testETagSaveAndCompare() throws {
        let server = try makeServer()
        server.route("/feed") { request, writer in
            if request.header("If-None-Match") == "\"v7\"" {
                writer.respond(status: 304, headers: ["ETag": "\"v7\""])
            } else {
                writer.respond(status: 200, headers: ["ETag": "\"v7\""], text: "the feed")
            }
        }
        let folder = try makeTemporaryDirectory()
        let url = server.url("/feed").absoluteString
        let alone = try start(["-s", "--etag-compare", "etag.txt", "-o", "feed.xml", url], in: folder).finish()
        XCTAssertEqual(alone.status, 26, "no ETag file to compare: curl's read error, before any request")
        XCTAssertEqual(server.requestCount, 0)
        // With --etag-save to make it (curl's test 344): an empty ETag is sent, as curl sends it.
        let first = try start(["-s", "--etag-compare", "etag.txt", "--etag-save", "etag.txt", "-o", "feed.xml", url], in: folder).finish()
        XCTAssertEqual(first.status, 0, first.stderrText)
        XCTAssertEqual(try lastRequest(to: "/feed", on: server).header("If-None-Match"), "\"\"")
        if let curl = try RealCurl.run(["-s", "--etag-compare", "curl-etag.txt", "--etag-save", "curl-etag.txt", "-o", "curl.xml", url],
                                       in: folder) {
            XCTAssertEqual(curl.status, 0, curl.stderrText)
            XCTAssertEqual(try lastRequest(to: "/feed", on: server).header("If-None-Match"), "\"\"", "as curl sends it")
            try FileManager.default.removeItem(at: folder.appendingPathComponent("curl-etag.txt"))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("curl.xml"))
        }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("etag.txt"))
        let saved = try start(["-s", "--etag-save", "etag.txt", "-o", "feed.xml", url], in: folder).finish()
        XCTAssertEqual(saved.status, 0, saved.stderrText)
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("etag.txt"), encoding: .utf8), "\"v7\"\n")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("feed.xml"))
        let unchanged = try start(["-s", "--etag-compare", "etag.txt", "-o", "feed.xml", url], in: folder).finish()
        XCTAssertEqual(unchanged.status, 0, unchanged.stderrText)
        XCTAssertEqual(try lastRequest(to: "/feed", on: server).header("If-None-Match"), "\"v7\"")
        XCTAssertEqual(fileNames(in: folder), ["etag.txt"], "a 304 writes no file, as in curl")
    }
}

extension CLIResumeAndHeadTests {
    /// `--etag-save FILE` is made (empty) before the transfer, as curl opens it: an answer with
    /// a blank ETag leaves it empty; a file that cannot be made skips the transfer with curl's
    /// warning, and a line with no transfer left exits 26 ("no transfer performed").
    func testETagSaveMakesItsFileBeforeTheTransfer() throws {
        let server = try makeServer()
        server.route("/blank") { _, writer in writer.respond(status: 200, headers: ["ETag": ""], text: "body") }
        let folder = try makeTemporaryDirectory()
        let url = server.url("/blank").absoluteString
        for tool in ["courier", "curl"] {
            let arguments = ["-s", "-o", "out", "--etag-save", "etag-\(tool).txt", url]
            guard let result = tool == "courier" ? try start(arguments, in: folder).finish() : try RealCurl.run(arguments, in: folder) else { continue }
            XCTAssertEqual(result.status, 0, "\(tool): \(result.stderrText)")
            XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("etag-\(tool).txt"), encoding: .utf8), "", tool)
        }
        let before = server.requestCount
        let skipped = try start(["--no-progress-meter", "--etag-save", "nowhere/etag.txt", url], in: folder).finish()
        XCTAssertEqual(skipped.status, 26, skipped.stderrText)
        XCTAssertTrue(skipped.stderrText.hasPrefix("Warning: Failed creating file for saving etags: \"nowhere/etag.txt\". Skip this transfer\n"),
                      skipped.stderrText)
        XCTAssertEqual(server.requestCount, before, "nothing sent")
        if let curl = try RealCurl.run(["-s", "--etag-save", "nowhere/etag.txt", url], in: folder) {
            XCTAssertEqual(curl.status, 26, "curl's exit status")
        }
    }

    /// More `-o` than URLs: the others are left unused, with curl's warning, word for word.
    func testMoreOutputsThanURLsAreWarnedAbout() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let arguments = ["--no-progress-meter", "-o", "one", "-o", "two", server.url("/hello").absoluteString]
        let result = try start(arguments, in: folder).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stderrText, "Warning: Got more output options than URLs\n")
        XCTAssertEqual(fileNames(in: folder), ["one"])
        if let curl = try RealCurl.run(arguments, in: try makeTemporaryDirectory()) {
            XCTAssertEqual(curl.stderrText, result.stderrText, "curl's warning")
        }
    }
}

extension CLIResumeAndHeadTests {
    /// `-D -` with `-i`: both write the head to stdout, line by line in turn, as curl writes it
    /// (each line twice), then the body.
    func testDumpHeaderToStdoutWithIncludeWritesEachLineTwice() throws {
        let server = try makeServer().withStandardRoutes()
        let arguments = ["-s", "-D", "-", "-i", server.url("/hello").absoluteString]
        let result = try start(arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        let text = result.stdoutText.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\nHTTP/1.1 200 OK\r\n"), text)
        XCTAssertTrue(text.hasSuffix("\r\n\r\n\r\nhello"), text)
        // The fields as received: the curl engine's (URLSession hands them over sorted).
        if Network.Engine.automatic.resolved == .curl, let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.stdoutText.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression), text,
                           "as curl writes it")
        }
    }
}
