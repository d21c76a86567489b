import Courier
import Foundation
import XCTest

/// `-i` and `-D` write each response head as it arrived, as curl does: LF-only lines stay
/// LF-only, the server's reason phrase and spacing stay, `1xx` heads come first. The curl engine
/// keeps those bytes; the URLSession engine writes the head it was handed (status, a standard
/// phrase, the fields), as before.
final class CLIReceivedHeadTests: CLITestCase {
    private var usesCurl: Bool { Network.Engine.automatic.resolved == .curl }

    /// A final head with LF-only lines, an odd reason phrase and spacing.
    private static let finalHead = "HTTP/1.1 200 Fine by  me\nServer:  spaced out \nContent-Length: 2\r\nX-Case: kept\n\n"
    /// The same after an interim `100`. (For the curl engine only: Linux's URLSession fails, 56,
    /// on LF-only lines and on an unasked-for `100`, as before; it is sent CRLF lines alone.)
    private static let heads = "HTTP/1.1 100 Go on then\r\n\r\n" + finalHead
    private static let urlSessionHead = "HTTP/1.1 200 Fine by  me\r\nServer:  spaced out \r\nContent-Length: 2\r\n\r\n"

    private func makeOddServer() throws -> TestServer {
        let server = try makeServer()
        server.route("/odd") { _, writer in
            writer.write(Data(((Network.Engine.automatic.resolved == .curl ? Self.heads : Self.urlSessionHead) + "hi").utf8))
        }
        return server
    }

    func testIncludeWritesTheHeadsAsReceived() throws {
        let server = try makeOddServer()
        let url = server.url("/odd").absoluteString
        let result = try courier("-s", "-i", url)
        XCTAssertEqual(result.status, 0, result.stderrText)
        guard usesCurl else {
            XCTAssertTrue(result.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"), result.stdoutText)
            XCTAssertTrue(result.stdoutText.hasSuffix("\r\n\r\nhi"), result.stdoutText)
            return
        }
        XCTAssertEqual(result.stdoutText, Self.heads + "hi")
        if let curl = try RealCurl.run(["-s", "-i", url]) {
            XCTAssertEqual(curl.stdoutText, result.stdoutText, "as curl writes it")
        }
    }

    func testDumpHeaderWritesTheHeadsAsReceived() throws {
        let server = try makeOddServer()
        let folder = try makeTemporaryDirectory()
        let dump = folder.appendingPathComponent("heads").path
        let result = try courier("-s", "-D", dump, server.url("/odd").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "hi")
        let written = try String(contentsOfFile: dump, encoding: .utf8)
        if usesCurl {
            XCTAssertEqual(written, Self.heads)
        } else {
            XCTAssertTrue(written.hasPrefix("HTTP/1.1 200 OK\r\n") && written.hasSuffix("\r\n\r\n"), written)
        }
    }

    func testTheHeadsOfTooManyRedirectsAreWrittenBeforeTheFailure() throws {
        let server = try makeServer()
        server.route("/loop") { _, writer in
            writer.respond(status: 301, headers: ["Location": "/loop"], text: "again")
        }
        let arguments = ["-s", "-i", "-L", "--max-redirs", "2", server.url("/loop").absoluteString]
        let result = try start(arguments).finish()
        XCTAssertEqual(result.status, 47, result.stderrText)
        // The two followed and the one that was one too many, as curl writes them; no body.
        XCTAssertEqual(result.stdoutText.components(separatedBy: "HTTP/1.1 301 Moved Permanently\r\n").count, 4, result.stdoutText)
        XCTAssertFalse(result.stdoutText.contains("again"), result.stdoutText)
        // Byte for byte on the curl engine (URLSession hands the fields over in its own order).
        if usesCurl, let curl = try RealCurl.run(arguments) {
            XCTAssertEqual(curl.status, 47)
            let undated = { (text: String) in text.replacingOccurrences(of: "Date: [^\r]*\r\n", with: "", options: .regularExpression) }
            XCTAssertEqual(undated(curl.stdoutText), undated(result.stdoutText), "as curl writes them")
        }
    }

    func testAResumeOfAFinishedFileWritesThe416Head() throws {
        let server = try makeServer()
        server.route("/done") { _, writer in
            writer.respond(status: 416, headers: ["Content-Range": "bytes */5"], text: "")
        }
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("file")
        try Data("12345".utf8).write(to: file)
        let result = try courier("-s", "-i", "-C", "-", "-o", file.path, server.url("/done").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        // curl appends the head (-i) to the file, which is otherwise left as it was.
        let written = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(written.hasPrefix("12345HTTP/1.1 416 "), written)
        XCTAssertTrue(written.hasSuffix("\r\n\r\n"), written)
    }
}
