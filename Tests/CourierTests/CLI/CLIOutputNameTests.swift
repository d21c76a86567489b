import Courier
import Foundation
import XCTest

/// Where a transfer's body goes, as curl decides it: `-o` and `-O` paired with the URLs in order,
/// `--remote-name-all`, `-J`, `--output-dir`, `--create-dirs`, `--remove-on-error`.
final class CLIOutputNameTests: CLITestCase {
    private func makeNamedServer() throws -> TestServer {
        let server = try makeServer().withStandardRoutes()
        server.route("/files/report.txt") { _, writer in writer.respond(status: 200, text: "the report") }
        server.route("/export") { request, writer in
            let name = request.queryItems["name"] ?? "export.csv"
            writer.respond(status: 200, headers: ["Content-Disposition": "attachment; filename=\"\(name)\""], text: "a,b\n")
        }
        return server
    }

    func testRemoteNameAndOutputsPairWithTheURLsInOrder() throws {
        let server = try makeNamedServer()
        let folder = try makeTemporaryDirectory()
        let result = try start(["-s", "-O", server.url("/files/report.txt?v=2").absoluteString, "-o", "second.txt",
                                server.url("/hello").absoluteString, server.url("/bytes?n=3").absoluteString], in: folder).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(fileNames(in: folder), ["report.txt", "second.txt"], "the name without the query")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("report.txt"), encoding: .utf8), "the report")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("second.txt"), encoding: .utf8), "hello")
        XCTAssertEqual(result.stdoutText, "aaa", "the third URL has no output: stdout")

        let all = try start(["-s", "--remote-name-all", server.url("/hello").absoluteString, server.url("/files/report.txt").absoluteString],
                            in: try makeTemporaryDirectory()).finish()
        XCTAssertEqual(all.status, 0, all.stderrText)
        // A URL with no file name: curl's exit 23, nothing sent for it.
        let nameless = try start(["-sO", server.url("/").absoluteString], in: folder).finish()
        XCTAssertEqual(nameless.status, 23)
        XCTAssertNil(server.receivedRequests.first { $0.path == "/" })
    }

    func testRemoteHeaderNameIsSafeAndNeverReplacesAFile() throws {
        let server = try makeNamedServer()
        let folder = try makeTemporaryDirectory()
        for (name, saved) in [("data.csv", "data.csv"), ("../../escape/evil.csv", "evil.csv"), ("/etc/passwd", "passwd"),
                              ("..", "export"), ("a\u{1B}[31mb.csv", "a_[31mb.csv")] {
            let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
            let result = try start(["-sJO", server.url("/export?name=\(query)").absoluteString], in: folder).finish()
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderrText)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent(saved).path), "\(name) → \(fileNames(in: folder))")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().appendingPathComponent("escape").path))
        // An existing file is not replaced: exit 23, the file as it was.
        try Data("mine".utf8).write(to: folder.appendingPathComponent("data.csv"))
        let refused = try start(["-sJO", server.url("/export?name=data.csv").absoluteString], in: folder).finish()
        XCTAssertEqual(refused.status, 23)
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("data.csv"), encoding: .utf8), "mine")
    }

    func testOutputDirAndCreateDirs() throws {
        let server = try makeNamedServer()
        let folder = try makeTemporaryDirectory()
        let missing = try start(["-s", "--output-dir", "out", "-O", server.url("/files/report.txt").absoluteString], in: folder).finish()
        XCTAssertEqual(missing.status, 23, "the folder must exist, as in curl")
        let made = try start(["-s", "--create-dirs", "--output-dir", "out/deeper", "-O", server.url("/files/report.txt").absoluteString,
                              "-o", "a/b/c.txt", server.url("/hello").absoluteString], in: folder).finish()
        XCTAssertEqual(made.status, 0, made.stderrText)
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("out/deeper/report.txt"), encoding: .utf8), "the report")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("out/deeper/a/b/c.txt"), encoding: .utf8), "hello")
    }

    func testAFailedTransferLeavesWhatArrivedUnlessRemoveOnError() throws {
        let server = try makeServer()
        server.route("/cut") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "100")])
            writer.write(Data(repeating: 0x61, count: 40))
            writer.closeConnection()
        }
        let folder = try makeTemporaryDirectory()
        let kept = try start(["-s", "-o", "cut.bin", server.url("/cut").absoluteString], in: folder).finish()
        XCTAssertEqual(kept.status, 18)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("cut.bin")).count, 40, "as curl leaves it")
        let removed = try start(["-s", "--remove-on-error", "-o", "gone.bin", server.url("/cut").absoluteString], in: folder).finish()
        XCTAssertEqual(removed.status, 18)
        XCTAssertEqual(fileNames(in: folder), ["cut.bin"])
        // -f leaves no file at all: nothing is opened for an error status.
        let failed = try start(["-sf", "-o", "page.txt", server.url("/nothing-here").absoluteString], in: folder).finish()
        XCTAssertEqual(failed.status, 22)
        XCTAssertEqual(fileNames(in: folder), ["cut.bin"])
    }

    func testUploadGoesToTheFilesNameWithoutAContentType() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeFile(named: "up load.bin", content: Data("payload\r\n".utf8))
        let result = try courier("-s", "-T", file.path, server.url("/upload/").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(request.path, "/upload/up%20load.bin")
        XCTAssertEqual(request.body, Data("payload\r\n".utf8))
        XCTAssertNil(request.header("Content-Type"), "curl -T sends none: a pre-signed URL's signature may cover the headers")
    }

    func testNoClobberKeepsTheFileAndWritesTheNextNumber() throws {
        let server = try makeServer().withStandardRoutes()
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("saved.txt")
        try Data("keep me".utf8).write(to: file)
        try Data("keep me too".utf8).write(to: folder.appendingPathComponent("saved.txt.1"))
        let url = server.url("/hello").absoluteString
        let result = try courier("-s", "--no-clobber", "-o", file.path, "-w", "%{filename_effective}", url)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, file.path + ".2", "the first free number, as curl names it")
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "keep me")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("saved.txt.2"), encoding: .utf8), "hello")
        // --clobber (the default) after it replaces the file again.
        XCTAssertEqual(try courier("-s", "--no-clobber", "--clobber", "-o", file.path, url).status, 0)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "hello")
        // Every number taken: exit 23, as curl, and nothing replaced.
        for number in 1..<100 { try Data().write(to: folder.appendingPathComponent("saved.txt.\(number)")) }
        let full = try courier("-s", "--no-clobber", "-o", file.path, url)
        XCTAssertEqual(full.status, 23, full.stderrText)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "hello")
        if let curl = try RealCurl.run(["-s", "--no-clobber", "-o", file.path, url]) { XCTAssertEqual(curl.status, 23) }
    }
}
