import Courier
import Foundation
import XCTest

/// `-T` as curl pairs it with the URLs: the first with the first URL, the second with the
/// second; a URL past the last `-T` sends nothing; a glob in a file name is one upload per file
/// (the files outside, the URL's expansions inside); a file that cannot be read fails its own
/// turn (exit 26), the uploads before it done. Where the `curl` command is installed and
/// courier runs on the libcurl it was measured with, the server must see the same requests.
final class CLIUploadPairingTests: CLITestCase {
    /// The requests the server saw for the line (method, path, body), courier's and, where it
    /// can be compared, curl's too, which must be the same; and courier's exit status.
    private func requests(_ arguments: (TestServer) -> [String], in folder: URL,
                          file: StaticString = #filePath, line: UInt = #line) throws -> (seen: [String], status: Int32) {
        func run(_ tool: ([String]) throws -> CLIResult?) throws -> (seen: [String], status: Int32)? {
            let server = try makeServer()
            defer { server.stop() }
            guard let result = try tool(["-s", "-o", "/dev/null"] + arguments(server)) else { return nil }
            let seen = server.receivedRequests.map { request in
                "\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))"
                    + (request.header("Expect").map { " [Expect: \($0)]" } ?? "")
            }
            return (seen, result.status)
        }
        let courier = try XCTUnwrap(try run { try start($0, in: folder).finish() }, file: file, line: line)
        // On the curl engine: URLSession sends no `Expect: 100-continue`, which curl does.
        if Network.Engine.automatic.resolved == .curl, RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = try run({ try RealCurl.run($0, in: folder) }) {
            XCTAssertEqual(courier.seen, curl.seen, "as curl sends them", file: file, line: line)
            XCTAssertEqual(courier.status, curl.status, "curl's exit status", file: file, line: line)
        }
        return courier
    }

    private func folder(with files: [String: String]) throws -> URL {
        let folder = try makeTemporaryDirectory()
        for (name, content) in files { try Data(content.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    func testEachUploadGoesToTheURLOfItsPosition() throws {
        let folder = try folder(with: ["a": "first", "b": "second"])
        let line = try requests({ ["-H", "Expect:", "-T", "a", $0.url("/1").absoluteString, "-T", "b", $0.url("/2").absoluteString] },
                                in: folder)
        XCTAssertEqual(line.status, 0)
        XCTAssertEqual(line.seen, ["PUT /1 first", "PUT /2 second"])
    }

    func testAURLPastTheUploadsSendsNothing() throws {
        let folder = try folder(with: ["a": "first"])
        let line = try requests({ ["-T", "a", $0.url("/1").absoluteString, $0.url("/2").absoluteString] }, in: folder)
        XCTAssertEqual(line.status, 0)
        let expect = Network.Engine.automatic.resolved == .curl ? " [Expect: 100-continue]" : ""
        XCTAssertEqual(line.seen, ["PUT /1 first" + expect, "GET /2 "], "no Expect without a body")
    }

    func testAGlobInTheNameIsOneUploadPerFileToEveryURL() throws {
        let folder = try folder(with: ["a": "A", "b": "B"])
        let line = try requests({ ["-H", "Expect:", "-T", "{a,b}", "http://127.0.0.1:\($0.port)/{x,y}/"] }, in: folder)
        XCTAssertEqual(line.status, 0)
        XCTAssertEqual(line.seen, ["PUT /x/a A", "PUT /y/a A", "PUT /x/b B", "PUT /y/b B"])
    }

    func testAFileThatCannotBeReadFailsItsOwnTurn() throws {
        let folder = try folder(with: ["a": "A"])
        let line = try requests({ ["-H", "Expect:", "-T", "{a,missing}", $0.url("/up").absoluteString] }, in: folder)
        XCTAssertEqual(line.status, 26)
        XCTAssertEqual(line.seen, ["PUT /up A"], "the upload before it is done")
    }
}

extension CLIUploadPairingTests {
    /// `-T -` goes chunked on the curl engine, as curl sends stdin (its length unknown to curl);
    /// a `-H 'Transfer-Encoding: chunked'` makes any body chunked, with no `Content-Length`. On
    /// URLSession, both go with their length: FoundationNetworking's own chunked upload from a
    /// file hangs now and then (URLSession+Transport's `withoutChunkedFraming`).
    func testStdinAndAChunkedHeaderSendTheBodyChunked() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeFile(named: "body.txt", content: Data("from a file".utf8))
        let lines: [(arguments: [String], stdin: Data?, body: String)] = [
            (["-T", "-", server.url("/echo").absoluteString], Data("from stdin".utf8), "from stdin"),
            (["-H", "Transfer-Encoding: chunked", "-T", file.path, server.url("/echo").absoluteString], nil, "from a file"),
        ]
        let chunks = Network.Engine.automatic.resolved == .curl
        for line in lines {
            var seen: [ServerRequest] = []
            let result = try start(["-s", "-o", "/dev/null"] + line.arguments, stdin: line.stdin).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            seen.append(try lastRequest(to: "/echo", on: server))
            if chunks, RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = RealCurl.executable {
                let reference = try RunningCourier(executable: curl, arguments: ["-s", "-o", "/dev/null"] + line.arguments,
                                                   directory: nil, stdin: line.stdin).finish()
                XCTAssertEqual(reference.status, 0, reference.stderrText)
                seen.append(try lastRequest(to: "/echo", on: server))
            }
            for request in seen {
                XCTAssertEqual(String(decoding: request.body, as: UTF8.self), line.body)
                if chunks {
                    XCTAssertEqual(request.header("Transfer-Encoding"), "chunked", "\(line.arguments)")
                    XCTAssertNil(request.header("Content-Length"), "\(line.arguments)")
                } else {
                    XCTAssertEqual(request.header("Content-Length"), String(line.body.utf8.count))
                }
            }
        }
    }
}
