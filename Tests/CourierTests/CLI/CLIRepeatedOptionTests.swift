import Foundation
import XCTest

/// Options given twice, as curl takes them: the last `-u`, `-c`, `-r`, `-x` wins; `--json`
/// pieces are joined as they are. Where the `curl` command is installed, it must send the same.
final class CLIRepeatedOptionTests: CLITestCase {
    func testTheLastOneWinsAndJSONPiecesAreJoined() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/set") { _, writer in writer.respond(status: 200, headers: ["Set-Cookie": "k=v"], text: "set") }
        let url = server.url("/echo").absoluteString
        let arguments = ["-s", "-u", "first:one", "-u", "second:two", "--json", "{\"a\":", "--json", "1}", url]
        for client in ["courier", "curl"] {
            let result = client == "courier" ? try start(arguments).finish() : try RealCurl.run(arguments)
            guard let result else { continue }
            XCTAssertEqual(result.status, 0, "\(client): \(result.stderrText)")
            let request = try lastRequest(to: "/echo", on: server)
            XCTAssertEqual(request.header("Authorization"), "Basic c2Vjb25kOnR3bw==", client)
            XCTAssertEqual(request.body, Data("{\"a\":1}".utf8), client)
        }
        // (A GET: curl sends no Range with a body.)
        XCTAssertEqual(try courier("-s", "-r", "0-1", "-r", "2-3", url).status, 0)
        XCTAssertEqual(try lastRequest(to: "/echo", on: server).header("Range"), "bytes=2-3")
        let folder = try makeTemporaryDirectory()
        let jars = ["-s", "-c", "first.txt", "-c", "second.txt", server.url("/set").absoluteString]
        XCTAssertEqual(try start(jars, in: folder).finish().status, 0)
        XCTAssertEqual(fileNames(in: folder), ["second.txt"], "the last -c is the jar")
        let curlFolder = try makeTemporaryDirectory()
        if try RealCurl.run(jars, in: curlFolder) != nil { XCTAssertEqual(fileNames(in: curlFolder), ["second.txt"]) }
    }
}
