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
        let first = try start(["-s", "--etag-compare", "etag.txt", "--etag-save", "etag.txt", "-o", "feed.xml", url], in: folder).finish()
        XCTAssertEqual(first.status, 26, "no ETag file yet: curl's read error, before any request")
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
