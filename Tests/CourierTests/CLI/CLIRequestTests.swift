import Foundation
import XCTest

/// `courier [get|post|put|patch|delete|head] URL`, end to end: what reaches the server, and what
/// reaches stdout and stderr.
final class CLIRequestTests: CLITestCase {
    func testGetPrintsTheBodyByteExactToAPipe() throws {
        let server = try makeServer()
        let content = randomBytes(200_000)
        server.route("/blob") { _, writer in writer.respond(status: 200, body: content) }
        // Compact JSON stays compact: pretty-printing is for terminals only.
        server.route("/json") { _, writer in writer.respond(json: #"{"b":1,"a":[1.10,{}]}"#) }

        let blob = try courier(server.url("/blob").absoluteString)
        XCTAssertEqual(blob.status, 0, blob.stderrText)
        XCTAssertEqual(blob.stdout, content)
        XCTAssertEqual(blob.stderr, Data(), "nothing on stderr when it is not a terminal")

        let json = try courier("get", server.url("/json").absoluteString)
        XCTAssertEqual(json.status, 0, json.stderrText)
        XCTAssertEqual(json.stdoutText, #"{"b":1,"a":[1.10,{}]}"#)
    }

    func testURLWithoutSchemeMeansHTTP() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("127.0.0.1:\(server.port)/hello")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "hello")
    }

    func testPostSendsDataAsAForm() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("post", server.url("/echo").absoluteString, "--data", "a=1", "-d", "b=two")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "a=1&b=two")
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.header("Content-Type"), "application/x-www-form-urlencoded")
    }

    func testDataFromAFileLosesItsLineBreaksAndDataBinaryKeepsThem() throws {
        let server = try makeServer().withStandardRoutes()
        let content = Data("line one\r\nline two\n".utf8)
        let file = try makeFile(named: "body.txt", content: content)
        // As curl: -d @file strips CR and LF, --data-binary @file sends the bytes as they are.
        for (option, sent) in [("--data", Data("line oneline two".utf8)), ("--data-binary", content)] {
            let result = try courier(server.url("/echo").absoluteString, option, "@" + file.path)
            XCTAssertEqual(result.status, 0, result.stderrText)
            let request = try lastRequest(to: "/echo", on: server)
            XCTAssertEqual(request.method, "POST")
            XCTAssertEqual(request.body, sent, option)
            XCTAssertEqual(request.header("Content-Type"), "application/x-www-form-urlencoded")
        }
        let fromStdin = try courier(server.url("/echo").absoluteString, "--data-binary", "@-", stdin: content)
        XCTAssertEqual(fromStdin.status, 0, fromStdin.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).body, content)
    }

    func testJSONSetsContentTypeAndAccept() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("patch", server.url("/echo").absoluteString, "--json", #"{"name":"x"}"#)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "PATCH")
        XCTAssertEqual(request.body, Data(#"{"name":"x"}"#.utf8))
        XCTAssertEqual(request.header("Content-Type"), "application/json")
        XCTAssertEqual(request.header("Accept"), "application/json")
    }

    func testHeadersAndBasicCredentialsReachTheServer() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("-H", "X-One: 1", "-H", "X-Two:  two words ", server.url("/echo").absoluteString,
                                 "-u", "alice:pa:ss")
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.header("X-One"), "1")
        XCTAssertEqual(request.header("X-Two"), "two words")
        XCTAssertEqual(request.header("Authorization"), "Basic " + Data("alice:pa:ss".utf8).base64EncodedString())
    }

    func testBearerTokenAndDelete() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("delete", "--bearer", "t0ken", server.url("/echo").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "DELETE")
        XCTAssertEqual(request.header("Authorization"), "Bearer t0ken")
    }

    func testCurlsSpellingsOAuth2BearerAndNoInclude() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/echo").absoluteString
        let bearer = try courier("-s", "-o", "/dev/null", "--oauth2-bearer", "t0ken", url)
        XCTAssertEqual(bearer.status, 0, bearer.stderrText)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).header("Authorization"), "Bearer t0ken")
        // --no-include undoes an earlier -i: the body alone, as with neither.
        let plain = try courier("-s", url)
        let undone = try courier("-s", "-i", "--no-include", url)
        XCTAssertEqual(undone.status, 0, undone.stderrText)
        XCTAssertFalse(undone.stdoutText.hasPrefix("HTTP/"), undone.stdoutText)
        XCTAssertEqual(undone.stdout.count, plain.stdout.count)
    }

    func testPercentEncodingsInTheQueryAndAnUploadsNameAreLowerCaseAsCurls() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeFile(named: "x[]y.txt", content: Data("data".utf8))
        let lines = [["-s", "-o", "/dev/null", "-G", "--data-urlencode", "a=[]", server.url("/echo").absoluteString],
                     ["-s", "-o", "/dev/null", "-T", file.path, server.url("/up/").absoluteString]]
        var seen: [String] = []
        for arguments in lines {
            XCTAssertEqual(try start(arguments).finish().status, 0)
            let request = try XCTUnwrap(server.receivedRequests.last)
            seen.append(request.path + (request.query.map { "?" + $0 } ?? ""))
            if let curl = try RealCurl.run(arguments) {
                XCTAssertEqual(curl.status, 0)
                let request = try XCTUnwrap(server.receivedRequests.last)
                XCTAssertEqual(request.path + (request.query.map { "?" + $0 } ?? ""), seen.last, "as curl")
            }
        }
        XCTAssertEqual(seen, ["/echo?a=%5b%5d", "/up/x%5b%5dy.txt"])
    }

    func testFormSendsMultipartFieldsAndFiles() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeFile(named: "notes.txt", content: Data("file contents".utf8))
        let result = try courier(server.url("/echo").absoluteString, "--form", "title=Hello world",
                                 "-F", "upload=@\(file.path);type=text/plain")
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(request.method, "POST")
        let contentType = try XCTUnwrap(request.header("Content-Type"))
        XCTAssertTrue(contentType.hasPrefix("multipart/form-data; boundary="), contentType)
        let body = String(decoding: request.body, as: UTF8.self)
        XCTAssertTrue(body.contains("Content-Disposition: form-data; name=\"title\"\r\n\r\nHello world\r\n"), body)
        XCTAssertTrue(body.contains("name=\"upload\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nfile contents\r\n"), body)
        // curl's boundary shape (24 dashes, 16 hex digits), so that the body is as long as curl's.
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        XCTAssertNotNil(boundary.range(of: "^-{24}[0-9a-f]{16}$", options: .regularExpression), boundary)
        // curl 8's boundaries are longer: the lengths are compared where curl is 7.88.1's (the
        // matrix runs the system's curl on 8.14 too).
        if RealCurl.courierRunsOnTheMeasuredLibcurl,
           let curl = try RealCurl.run(["-s", "-o", "/dev/null", server.url("/echo").absoluteString, "--form", "title=Hello world",
                                        "-F", "upload=@\(file.path);type=text/plain"]) {
            XCTAssertEqual(curl.status, 0, curl.stderrText)
            XCTAssertEqual(try lastRequest(to: "/echo", on: server).body.count, request.body.count, "as long as curl's")
        }
    }

    func testUploadFileIsStreamedWithPut() throws {
        let server = try makeServer()
        let folder = try makeTemporaryDirectory()
        server.spoolBodies(of: "/upload", into: folder)
        server.route("/upload") { request, writer in
            writer.respond(status: 201, headers: ["X-Method": request.method], text: "stored")
        }
        let content = randomBytes(3_000_000, seed: 3)
        let file = try makeFile(named: "archive.bin", content: content)
        let result = try courier("--upload-file", file.path, server.url("/upload").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "stored")
        let request = try lastRequest(to: "/upload", on: server)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(request.bodyFile)), content)
    }

    func testIncludePrintsTheStatusLineAndHeadersBeforeTheBody() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier("-i", server.url("/hello").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        // As curl prints it: each line ends with CRLF, as on the wire.
        let text = result.stdoutText
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), text)
        XCTAssertTrue(text.contains("\r\nContent-Type: text/plain\r\n"), text)
        XCTAssertTrue(text.hasSuffix("\r\n\r\nhello"), text)
    }

    func testHeadPrintsTheHeadOnly() throws {
        let server = try makeServer().withStandardRoutes()
        for command in [["head"], ["-I"], ["--head"]] {
            let result = try start(command + [server.url("/status?code=404").absoluteString]).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertTrue(result.stdoutText.hasPrefix("HTTP/1.1 404 Not Found\r\n"), result.stdoutText)
            XCTAssertTrue(result.stdoutText.contains("X-Reason: test\r\n"), result.stdoutText)
            XCTAssertTrue(result.stdoutText.hasSuffix("\r\n\r\n"), result.stdoutText)
            XCTAssertEqual(try lastRequest(to: "/status", on: server).method, "HEAD")
        }
    }

    func testOutputWritesTheFileAndNothingElse() throws {
        let server = try makeServer()
        let content = randomBytes(1_500_000, seed: 9)
        try serveFile(content, at: "/file", on: server)
        let folder = try makeTemporaryDirectory()
        let destination = folder.appendingPathComponent("saved.bin")
        let result = try courier(server.url("/file").absoluteString, "-o", destination.path)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdout, Data())
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(fileNames(in: folder), ["saved.bin"])
    }

    func testFailExits22WithAMessageAndNoBody() throws {
        let server = try makeServer().withStandardRoutes()
        let url = server.url("/status?code=404").absoluteString
        let result = try courier("--fail", url)
        XCTAssertEqual(result.status, 22)
        XCTAssertEqual(result.stdout, Data())
        XCTAssertFalse(result.stderrText.contains("status 404 body"), "curl prints no body with -f: \(result.stderrText)")
        XCTAssertTrue(result.stderrText.contains("courier: HTTP 404 Not Found"), result.stderrText)
        // -s silences the message, -S brings it back; --fail-with-body prints the body and fails.
        let silent = try courier("-fs", url)
        XCTAssertEqual(silent.status, 22)
        XCTAssertEqual(silent.stderr, Data())
        XCTAssertEqual(silent.stdout, Data())
        XCTAssertTrue(try courier("-fsS", url).stderrText.contains("HTTP 404"))
        let withBody = try courier("-s", "--fail-with-body", url)
        XCTAssertEqual(withBody.status, 22)
        XCTAssertEqual(withBody.stdoutText, "status 404 body")
    }

    func testErrorStatusWithoutFailPrintsTheBodyAndSucceeds() throws {
        let server = try makeServer().withStandardRoutes()
        let result = try courier(server.url("/status?code=503").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, "status 503 body")
    }

    func testProgressOnANonTerminalIsPlainLinesOnStderrOnly() throws {
        let server = try makeServer()
        let content = randomBytes(2_000_000, seed: 5)
        try serveFile(content, at: "/file", on: server)
        let url = server.url("/file").absoluteString

        let quiet = try courier(url)
        XCTAssertEqual(quiet.stderr, Data(), "no progress on a non-terminal without --progress")

        let result = try courier(url, "--progress")
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdout, content, "progress never mixes into stdout")
        let lines = result.stderrText.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        XCTAssertFalse(result.stderrText.contains("\u{1B}"), "no terminal escapes in plain lines")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("file ") && $0.contains("MB") }, result.stderrText)
        XCTAssertTrue(lines.last?.contains("2.0 MB / 2.0 MB (100%)") == true, result.stderrText)
    }

    func testHeaderLinesFromAFileAndGloboffAreTakenAsCurlTakesThem() throws {
        let server = try makeServer().withStandardRoutes()
        // CR LF, LF and blank lines: each non-blank line is a header, as curl's -H @file reads them.
        let file = try makeFile(named: "headers.txt", content: Data("X-One: 1\r\n\r\nX-Two: 2\nX-Three: 3".utf8))
        let result = try courier("-g", "-H", "@" + file.path, "-H", "X-Four: 4", server.url("/echo").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        let request = try lastRequest(to: "/echo", on: server)
        XCTAssertEqual(["X-One", "X-Two", "X-Three", "X-Four"].map { request.header($0) }, ["1", "2", "3", "4"])
    }
}
