import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A reply that is not valid HTTP, one cut short and no reply at all are each reported for what
/// they are. (A server that sends a status line and then closes is left out on purpose: it traps
/// inside FoundationNetworking, and is dealt with elsewhere.)
final class ServerReplyTests: XCTestCase {
    /// A route that writes `bytes` as they are, then closes the connection.
    private func routeRaw(_ path: String, _ bytes: String, on server: TestServer) {
        server.route(path) { _, writer in
            writer.write(Data(bytes.utf8))
            writer.closeConnection()
        }
    }

    private func invalidResponseMessage(_ path: String, on server: TestServer,
                                        file: StaticString = #filePath, line: UInt = #line) -> String? {
        let outcome = result(of: Request<Data>.get(server.url(path)), on: makeNetwork())
        guard case let .invalidResponse(message)? = networkError(outcome, file: file, line: line) else {
            XCTFail("\(path): expected invalidResponse, got \(String(describing: outcome))", file: file, line: line)
            return nil
        }
        return message
    }

    func testRepliesThatAreNotHTTPAreInvalidResponses() throws {
        let server = try makeServer()
        // `mentions` holds for every libcurl from 7.68 on (8.x: "Unsupported HTTP/1 subversion",
        // "chunk hex-length char not a hex digit"; a NUL is refused by Courier where libcurl lets it through).
        let cases: [(path: String, reply: String, mentions: String)] = [
            ("/bad-status", "HTTP/1.1 abc\r\n\r\n", "Unsupported HTTP"),
            ("/http09", "hello\r\n", "HTTP/0.9"),
            ("/no-colon", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nNoColonHere\r\n\r\nhi", "colon"),
            ("/bad-chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", "chunk"),
            ("/bad-length", "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhi", "Content-Length"),
            ("/nul", "HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\nContent-Length: 0\r\n\r\n", "nul byte"),
        ]
        for (path, reply, mentions) in cases {
            routeRaw(path, reply, on: server)
            guard let message = invalidResponseMessage(path, on: server) else { continue }
            XCTAssertTrue(message.localizedCaseInsensitiveContains(mentions), "\(path): \(message)")
            let description = NetworkError.invalidResponse(message).localizedDescription
            XCTAssertTrue(description.contains("not valid HTTP"), description)
        }
    }

    func testBodyCutShortIsIncompleteBody() throws {
        let server = try makeServer()
        server.routeCuttingBody("/cut", announcing: 10, sending: 3)
        routeRaw("/cut-chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", on: server)
        for path in ["/cut", "/cut-chunked"] {
            let outcome = result(of: Request<Data>.get(server.url(path)), on: makeNetwork())
            guard case let .incompleteBody(error)? = networkError(outcome) else {
                XCTFail("\(path): expected incompleteBody, got \(String(describing: outcome))")
                continue
            }
            XCTAssertTrue(LibcurlMessages.saysTheBodyWasCutShort(error.localizedDescription), error.localizedDescription)
            XCTAssertTrue(NetworkError.incompleteBody(error).localizedDescription.contains("before the body was complete"))
        }
    }

    func testIncompleteBodyIsRetriedLikeAConnectionLost() throws {
        let server = try makeServer()
        server.routeCuttingBody("/cut", announcing: 10, sending: 3)
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maximumDelay: 0.01))
        guard case .incompleteBody? = networkError(result(of: Request<Data>.get(server.url("/cut")), on: network)) else {
            return XCTFail("expected incompleteBody")
        }
        XCTAssertEqual(server.requestCount, 2)
    }

    func testNoReplyAtAllIsAnEmptyReplyNotACutBody() throws {
        let server = try makeServer()
        server.route("/nothing") { _, writer in writer.closeConnection() }
        let outcome = result(of: Request<Data>.get(server.url("/nothing")), on: makeNetwork())
        guard case let .transport(error)? = networkError(outcome) else {
            return XCTFail("expected transport, got \(String(describing: outcome))")
        }
        XCTAssertEqual(error.code, .badServerResponse)
        XCTAssertEqual(error.localizedDescription, "Empty reply from server")
    }

    // MARK: - Content-Length

    /// `Content-Length` conflicts in every form FoundationNetworking can hand over (it joins
    /// repeated fields into one `"5, 10"` value).
    private let conflictingLengths: [(path: String, fields: [(String, String)])] = [
        ("/two-lengths", [("Content-Length", "5"), ("Content-Length", "10")]),
        ("/two-lengths-shorter-last", [("Content-Length", "10"), ("Content-Length", "5")]),
        ("/length-list", [("Content-Length", "5, 10")]),
    ]

    private func routeConflictingLengths(on server: TestServer) {
        for (path, fields) in conflictingLengths {
            server.route(path) { _, writer in
                writer.writeHead(status: 200, headers: fields)
                writer.write(Data("hello".utf8))
                writer.closeConnection()
            }
        }
        server.route("/same-length-twice") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "5"), ("Content-Length", "5")])
            writer.write(Data("hello".utf8))
        }
    }

    func testConflictingContentLengthsAreRefusedInMemory() throws {
        let server = try makeServer()
        routeConflictingLengths(on: server)
        for (path, _) in conflictingLengths {
            guard let message = invalidResponseMessage(path, on: server) else { continue }
            XCTAssertTrue(message.contains("conflicting Content-Length"), "\(path): \(message)")
        }
        let same = Request<Data>.get(server.url("/same-length-twice")).string()
        XCTAssertEqual(try result(of: same, on: makeNetwork())?.get(), "hello", "identical lengths are fine")
    }

    func testConflictingContentLengthsAreRefusedByDownloads() throws {
        let server = try makeServer()
        routeConflictingLengths(on: server)
        let folder = try makeTemporaryDirectory()
        let network = makeNetwork()
        for (path, _) in conflictingLengths {
            let destination = folder.appendingPathComponent(String(path.dropFirst()))
            let outcome = network.downloadSynchronously(Request<Data>.get(server.url(path)), to: destination, timeout: 30)
            guard case let .invalidResponse(message)? = networkError(outcome) else {
                XCTFail("\(path): expected invalidResponse, got \(outcome)")
                continue
            }
            XCTAssertTrue(message.contains("conflicting Content-Length"), "\(path): \(message)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path), path)
        }
        let destination = folder.appendingPathComponent("same")
        XCTAssertEqual(try network.downloadSynchronously(Request<Data>.get(server.url("/same-length-twice")), to: destination,
                                                         timeout: 30).get(), destination)
        XCTAssertEqual(try Data(contentsOf: destination), Data("hello".utf8))
    }
}
