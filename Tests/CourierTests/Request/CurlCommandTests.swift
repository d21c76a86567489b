import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `curlCommand()`: the command, run by the real `curl` in a POSIX shell, sends the request
/// Courier sends.
final class CurlCommandTests: XCTestCase {
    private static let curl = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    private func requireCurl() throws {
        guard Self.curl != nil else { throw XCTSkip("no curl binary on this machine") }
    }

    /// Runs `command` with `/bin/sh -c`; fails the test on a non-zero exit.
    private func runInShell(_ command: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " --silent --show-error --output /dev/null"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        XCTAssertEqual(exited.wait(timeout: .now() + 30), .success, "curl did not finish", file: file, line: line)
        XCTAssertEqual(process.terminationStatus, 0, "\(command)\n\(String(decoding: stderr, as: UTF8.self))", file: file, line: line)
    }

    /// A server that answers every path it is told about with `200 ok` (and a `HEAD` with no body).
    private func makeCapturingServer(paths: [String]) throws -> TestServer {
        let server = try makeServer()
        for path in paths { server.route(path) { _, writer in writer.respond(status: 200, text: "ok") } }
        return server
    }

    /// Sends `request` with Courier, then runs its `curlCommand` (revealing credentials) in a
    /// shell, and compares what the server saw: method, path, query, the request's own headers
    /// and the body bytes (a multipart body part by part: curl picks its own boundary).
    private func assertCurlSendsTheSameRequest<R: NetworkRequest>(_ request: R, on server: TestServer,
                                                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let network = makeNetwork()
        _ = result(of: request, on: network)
        let command = request.curlCommand(revealingCredentials: true)
        try runInShell(command, file: file, line: line)
        let seen = server.receivedRequests.suffix(2)
        guard seen.count == 2, let courier = seen.first, let curl = seen.last else {
            return XCTFail("expected two requests, got \(seen.count)", file: file, line: line)
        }
        XCTAssertEqual(curl.method, courier.method, command, file: file, line: line)
        XCTAssertEqual(curl.path, courier.path, command, file: file, line: line)
        XCTAssertEqual(curl.query, courier.query, command, file: file, line: line)
        let multipart = courier.header("Content-Type")?.hasPrefix("multipart/form-data") == true
        for name in try request.makeURLRequest().allHTTPHeaderFields?.keys.sorted() ?? [] {
            if multipart, name.lowercased() == "content-type" { continue }
            XCTAssertEqual(curl.headerValues(name), courier.headerValues(name), "\(name) in \(command)", file: file, line: line)
        }
        if multipart {
            XCTAssertEqual(try Self.parts(of: curl), try Self.parts(of: courier), command, file: file, line: line)
            XCTAssertTrue(curl.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true, file: file, line: line)
        } else {
            XCTAssertEqual(curl.body, courier.body, command, file: file, line: line)
        }
    }

    /// The parts of a `multipart/form-data` body: each part's header lines (sorted) and bytes.
    private static func parts(of request: ServerRequest) throws -> [[String: Data]] {
        let type = try XCTUnwrap(request.header("Content-Type"))
        let boundary = try XCTUnwrap(type.components(separatedBy: "boundary=").last).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let delimiter = Data("\r\n--\(boundary)".utf8)
        var body = Data("\r\n".utf8) + request.body
        var parts: [[String: Data]] = []
        while let range = body.range(of: delimiter) {
            let chunk = body[body.startIndex..<range.lowerBound]
            body = body[range.upperBound...]
            guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }.sorted()
            parts.append(["head": Data(lines.joined(separator: "\n").utf8), "content": Data(chunk[split.upperBound...])])
        }
        return parts
    }

    func testHeadersQueryAndMethodsSurviveTheShell() throws {
        try requireCurl()
        let server = try makeCapturingServer(paths: ["/c/a b", "/c/x"])
        var get = Request<Data>(method: .get, url: server.url("/c/a%20b?t=it%27s&u=%E2%9C%93"),
                                headers: ["X-Quote": #"it's "quoted" $HOME `date` \ back"#, "X-Empty": "", "Accept": "application/json"],
                                authentication: .bearer("s3cret"))
        get.queryItems = [URLQueryItem(name: "q", value: "a+b c&d=e")]
        try assertCurlSendsTheSameRequest(get, on: server)
        try assertCurlSendsTheSameRequest(Request<Data>(method: .delete, url: server.url("/c/x")), on: server)
        try assertCurlSendsTheSameRequest(Request<Data>(method: .post, url: server.url("/c/x")), on: server)
        try assertCurlSendsTheSameRequest(Request<Data>(method: .head, url: server.url("/c/x")), on: server)
        XCTAssertTrue(Request<Data>(method: .head, url: server.url("/c/x")).curlCommand().contains(" --head "))
    }

    func testInMemoryBodiesAreSentByteForByte() throws {
        try requireCurl()
        let server = try makeCapturingServer(paths: ["/b"])
        let url = server.url("/b")
        var binary = Data([0, 1, 2, 0x27, 0x25, 0x5C, 0x0D, 0x0A, 0x1B, 0xFF, 0xFE, 0x80])
        binary.append(randomBytes(3000, seed: 5))
        // The command encodes a JSON body again: sorted keys make both encodings the same bytes.
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let bodies: [(HTTPMethod, RequestBody)] = [
            (.post, .json(Post(id: 1, title: "it's \"here\" ✓"), encoder: sorted)),
            (.put, .text("line one\nline 'two'\t$PATH `x` \\n %s")),
            (.patch, .data(binary, contentType: "application/octet-stream")),
            (.post, .text("@/etc/passwd is not a file to read")),
            (.post, .text("carriage\r\nreturn")),
            (.post, .form([("name", "Jo Bloggs"), ("q", "a+b&c=d"), ("quote", "'")])),
        ]
        for (method, body) in bodies {
            try assertCurlSendsTheSameRequest(Request<Data>(method: method, url: url, body: body), on: server)
        }
        // A GET with a body is sent as such by the curl engine (the URLSession engine refuses it:
        // see ErrorTests).
        if makeNetwork().engine == .curl {
            try assertCurlSendsTheSameRequest(Request<Data>(method: .get, url: url, body: .text("a GET with a body")), on: server)
        }
        XCTAssertTrue(Request<Data>(method: .get, url: url, body: .text("x")).curlCommand().hasPrefix("curl -X GET "))
        // Plain text inline, anything else through printf.
        XCTAssertTrue(Request<Data>(method: .post, url: url, body: .text("hello")).curlCommand().hasSuffix(" --data-binary hello"))
        XCTAssertTrue(Request<Data>(method: .post, url: url, body: .data(binary, contentType: "a/b")).curlCommand().hasPrefix("printf '\\000\\001\\002\\047\\045\\134"))
    }

    func testAFileBodyIsReadByCurl() throws {
        try requireCurl()
        let server = try makeCapturingServer(paths: ["/upload"])
        let folder = try makeTemporaryDirectory().appendingPathComponent("it's a folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("report $1.csv")
        try randomBytes(20_000, seed: 9).write(to: file)
        let request = Request<Data>(method: .put, url: server.url("/upload"), body: .file(file))
        XCTAssertTrue(request.curlCommand().contains("--data-binary '@\(folder.path.replacingOccurrences(of: "'", with: "'\\''"))/report $1.csv'"),
                      request.curlCommand())
        try assertCurlSendsTheSameRequest(request, on: server)
    }

    func testAMultipartFormIsSentPartByPart() throws {
        try requireCurl()
        let server = try makeCapturingServer(paths: ["/form"])
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent(#"we;ird "name",x.txt"#)
        try Data("file;content\n".utf8).write(to: file)
        var form = MultipartForm()
        form.addField(name: "title", value: #"Holiday "2025"; it's @here <there"#)
        form.addField(name: "notes", value: "two\nlines")
        form.addData(name: "json", data: Data(#"{"a": "b;c"}"#.utf8), filename: "a.json", mimeType: "application/json")
        form.addData(name: "plain", data: Data("no filename".utf8), mimeType: "text/plain; charset=utf-8")
        form.addData(name: "thumb", data: Data([0x89, 0x50, 0x4E, 0x47, 0, 0x0D, 0x0A, 0xFF]), filename: "t.png", mimeType: "image/png")
        form.addFile(name: "attachment", fileURL: file)
        let request = Request<Data>(method: .post, url: server.url("/form"), body: .multipart(form))
        let command = request.curlCommand()
        XCTAssertTrue(command.contains(" -F "), command)
        XCTAssertFalse(command.contains(form.boundary), "curl picks its own boundary: \(command)")
        try assertCurlSendsTheSameRequest(request, on: server)

        // Two parts that are not plain text cannot both come from standard input: the form's
        // own bytes are sent instead, boundary and all.
        var binary = MultipartForm()
        binary.addData(name: "a", data: Data([0, 1, 2]), filename: "a.bin")
        binary.addData(name: "b", data: Data([3, 4, 0]))
        binary.addField(name: "c", value: "text")
        let encoded = Request<Data>(method: .post, url: server.url("/form"), body: .multipart(binary))
        XCTAssertTrue(encoded.curlCommand().contains(binary.boundary))
        try assertCurlSendsTheSameRequest(encoded, on: server)
    }

    func testCredentialsAreRedactedUnlessAskedFor() throws {
        let request = Request<Data>(method: .get, url: URL(string: "https://alice:pa55word@api.example.com/me")!,
                                    headers: ["Cookie": "session=abc123", "Proxy-Authorization": "Basic cHJveHk=", "X-Trace": "t1"],
                                    authentication: .basic(username: "bob", password: "hunter2"))
        let redacted = request.curlCommand()
        XCTAssertEqual(redacted, "curl 'https://alice:<redacted>@api.example.com/me' -H 'Authorization: <redacted>'"
            + " -H 'Cookie: <redacted>' -H 'Proxy-Authorization: <redacted>' -H 'X-Trace: t1' --compressed")
        let revealed = request.curlCommand(revealingCredentials: true)
        for secret in ["pa55word", "session=abc123", "cHJveHk=", Authentication.basic(username: "bob", password: "hunter2").headerValue] {
            XCTAssertFalse(redacted.contains(secret), secret)
            XCTAssertTrue(revealed.contains(secret), secret)
        }
    }

    func testTheNetworkCompletesTheRequestAndAFailureIsAComment() throws {
        let network = makeNetwork()
        network.defaults.baseURL = URL(string: "https://api.example.com/v2/")
        network.defaults.headers = ["X-App": "demo"]
        network.jsonEncoder.keyEncodingStrategy = .convertToSnakeCase
        struct NewPost: Encodable, Sendable { let postTitle: String }
        let request = Request<Data>(method: .post, location: .string("posts"), body: .json(NewPost(postTitle: "Hi"))) { body, _ in body }
        // The network's User-Agent too: it is what the request sends (curl would send its own).
        XCTAssertEqual(request.curlCommand(on: network), "curl https://api.example.com/v2/posts -H 'Content-Type: application/json'"
            + " -H 'User-Agent: Courier/\(CourierVersion.current)' -H 'X-App: demo' --compressed --data-binary '{\"post_title\":\"Hi\"}'")
        XCTAssertTrue(Request<Data>.get("http://[::1]:8080/x").curlCommand().hasPrefix("curl --globoff "), "IPv6 brackets are not a glob")
        let broken = Request<Data>(method: .get, url: URL(string: "ftp://example.com/file")!).curlCommand()
        XCTAssertTrue(broken.hasPrefix("# cannot build the request: "), broken)
    }

    func testTheLoggerCanWriteEachAttemptAsACurlCommand() throws {
        try requireCurl()
        let server = try makeCapturingServer(paths: ["/logged"])
        let lines = Box<[String]>([])
        var logger = LoggingObserver { line in lines.mutate { $0?.append(line) } }
        logger.logsCurlCommands = true
        let network = makeNetwork()
        network.observers = [logger]
        let request = Request<Data>(method: .post, url: server.url("/logged?x=1"), body: .json(["a": 1]), authentication: .bearer("tok"))
        _ = try XCTUnwrap(result(of: request, on: network)).get()
        let line = try XCTUnwrap(lines.value?.first)
        XCTAssertTrue(line.hasSuffix("#1] → " + request.curlCommand(on: network)), line)
        XCTAssertTrue(line.contains("Authorization: <redacted>"), line)
        XCTAssertFalse(line.contains("tok"), line)
        // Run as logged (redacted), it sends the same method, URL and body.
        let command = try XCTUnwrap(line.components(separatedBy: "→ ").last)
        try runInShell(command)
        let seen = server.receivedRequests.suffix(2)
        XCTAssertEqual(seen.map(\.method), ["POST", "POST"])
        XCTAssertEqual(seen.map(\.query), ["x=1", "x=1"])
        XCTAssertEqual(seen.last?.body, seen.first?.body)
        XCTAssertEqual(seen.last?.header("Authorization"), "<redacted>")
    }
}
