import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest

/// `-o PATH` where PATH is a link the user names: opened as curl opens it, links followed
/// (issue 18). Only names Courier makes up itself refuse to follow links (those are guarded in
/// FileSystemSafetyTests too).
///
/// None of these writes to the real `/dev/stdout`: a link of the test's own, in a temporary
/// folder, points where `/dev/stdout` points (`/proc/self/fd/1`), so that a regression replaces
/// that link and nothing else. `courier` runs as a subprocess whose stdout is a pipe to the test.
final class CLIOutputLinkTests: CLITestCase {
    private func linkTarget(_ url: URL) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
    }

    private func serveBody(_ content: Data, on server: TestServer) {
        server.route("/file") { request, writer in writer.serve(content, etag: "\"v1\"", request: request) }
        server.route("/missing") { _, writer in writer.respond(status: 404, text: "no such file\n") }
    }

    /// A link to `/proc/self/fd/1`, as `/dev/stdout` is on Linux.
    private func makeStdoutLink(in folder: URL) throws -> URL {
        #if os(Linux)
        let link = folder.appendingPathComponent("stdout")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/proc/self/fd/1")
        return link
        #else
        throw XCTSkip("/dev/stdout is a link to /proc/self/fd/1 on Linux only")
        #endif
    }

    func testALinkToStdoutGetsTheBodyOnStdoutAsCurlWrites() throws {
        let server = try makeServer()
        let content = randomBytes(300_000, seed: 181)
        serveBody(content, on: server)
        let folder = try makeTemporaryDirectory()
        let link = try makeStdoutLink(in: folder)

        let result = try courier("-s", "-o", link.path, server.url("/file").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdout.count, content.count)
        XCTAssertEqual(result.stdout, content, "the body went through the link to stdout")
        XCTAssertEqual(linkTarget(link), "/proc/self/fd/1", "the link is still the link")
        XCTAssertEqual(fileNames(in: folder), ["stdout"], "no .partial file, no sidecar")

        if let curl = try RealCurl.run(["-s", "-o", link.path, server.url("/file").absoluteString]) {
            XCTAssertEqual(curl.status, 0)
            XCTAssertEqual(curl.stdout, result.stdout, "curl writes the same bytes to stdout")
        }
    }

    func testALinkToAFileIsWrittenThroughAndStaysALink() throws {
        let server = try makeServer()
        let content = randomBytes(200_000, seed: 182)
        serveBody(content, on: server)
        let folder = try makeTemporaryDirectory()

        // For each tool: a file with old contents, a relative link to it, and a dangling link.
        for tool in ["courier", "curl"] {
            let target = folder.appendingPathComponent("\(tool)-target.bin")
            try Data("old contents, longer than nothing\n".utf8).write(to: target)
            let link = folder.appendingPathComponent("\(tool)-link.bin")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.lastPathComponent)
            let dangling = folder.appendingPathComponent("\(tool)-dangling.bin")
            let created = folder.appendingPathComponent("\(tool)-created.bin")
            try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: created.lastPathComponent)

            let run: ([String]) throws -> CLIResult?
            if tool == "courier" {
                run = { arguments in try self.start(arguments).finish() }
            } else {
                guard RealCurl.executable != nil else { continue }
                run = { arguments in try RealCurl.run(arguments) }
            }
            let first = try XCTUnwrap(try run(["-s", "-o", link.path, server.url("/file").absoluteString]))
            XCTAssertEqual(first.status, 0, "\(tool): \(first.stderrText)")
            XCTAssertEqual(try Data(contentsOf: target), content, "\(tool) wrote the file the link leads to")
            XCTAssertEqual(linkTarget(link), target.lastPathComponent, "\(tool) left the link a link")

            let second = try XCTUnwrap(try run(["-s", "-o", dangling.path, server.url("/file").absoluteString]))
            XCTAssertEqual(second.status, 0, "\(tool): \(second.stderrText)")
            XCTAssertEqual(try? Data(contentsOf: created), content, "\(tool) created the file a dangling link names")
            XCTAssertEqual(linkTarget(dangling), created.lastPathComponent)

            // An error page: saved through the link without --fail; with it, exit 22 and the
            // file untouched.
            let page = try XCTUnwrap(try run(["-s", "-o", link.path, server.url("/missing").absoluteString]))
            XCTAssertEqual(page.status, 0, "\(tool): \(page.stderrText)")
            XCTAssertEqual(try Data(contentsOf: target), Data("no such file\n".utf8), tool)
            try content.write(to: target)
            let failed = try XCTUnwrap(try run(["-s", "-f", "-o", link.path, server.url("/missing").absoluteString]))
            XCTAssertEqual(failed.status, 22, "\(tool): \(failed.stderrText)")
            XCTAssertEqual(try Data(contentsOf: target), content, "\(tool) left the file alone")
        }
        let leftovers = fileNames(in: folder).filter { $0.hasSuffix(".partial") || $0.hasSuffix(".json") }
        XCTAssertEqual(leftovers, [])
    }

    func testDownloadFollowsALinkTheUserNamesAndRefusesOneToAPipe() throws {
        let server = try makeServer()
        let content = randomBytes(150_000, seed: 183)
        serveBody(content, on: server)
        let folder = try makeTemporaryDirectory()
        let target = folder.appendingPathComponent("target.bin")
        try Data("old".utf8).write(to: target)
        let link = folder.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)

        let result = try courier("download", "-s", "-o", link.path, server.url("/file").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try Data(contentsOf: target), content)
        XCTAssertEqual(linkTarget(link), target.path, "the link is still the link")
        XCTAssertEqual(fileNames(in: folder), ["link.bin", "target.bin"])

        // courier's stdout is a pipe here: /proc/self/fd/1 names no file to download into.
        let stdoutLink = try makeStdoutLink(in: folder)
        assertUsageError(try courier("download", "-o", stdoutLink.path, server.url("/file").absoluteString),
                         mentions: "use courier URL -o")
    }

    /// The other side of the rule: names courier makes up itself (the URL's, and the `.partial`
    /// files beside any destination) are never followed, whoever planted the link.
    func testNamesCourierMakesUpStillRefuseLinks() throws {
        let server = try makeServer()
        let content = randomBytes(100_000, seed: 184)
        serveBody(content, on: server)
        let folder = try makeTemporaryDirectory()
        let victim = folder.appendingPathComponent("victim.txt")
        let original = Data("the victim's own bytes\n".utf8)
        try original.write(to: victim)

        // download -d: the name comes from the URL.
        let downloads = folder.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let named = downloads.appendingPathComponent("file")
        try FileManager.default.createSymbolicLink(atPath: named.path, withDestinationPath: victim.path)
        let result = try courier("download", "-s", "-d", downloads.path, server.url("/file").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(try Data(contentsOf: victim), original, "the link's target is untouched")
        XCTAssertNil(linkTarget(named), "the link was replaced by the file")
        XCTAssertEqual(try Data(contentsOf: named), content)

        // download -o FILE (no link): its .partial file is courier's name; a link planted there is not followed.
        let destination = folder.appendingPathComponent("out.bin")
        try FileManager.default.createSymbolicLink(atPath: destination.path + ".partial", withDestinationPath: victim.path)
        let saved = try courier("download", "-s", "-o", destination.path, server.url("/file").absoluteString)
        XCTAssertEqual(saved.status, 0, saved.stderrText)
        XCTAssertEqual(try Data(contentsOf: victim), original, "the planted .partial link's target is untouched")
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(fileNames(in: folder), ["downloads", "out.bin", "victim.txt"])
    }
}
