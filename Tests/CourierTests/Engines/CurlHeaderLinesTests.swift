import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The header lines a network reuses from one request to the next when the fields are the same
/// (the curl engine's `CurlHeaderLines`): every request must still send exactly its own fields,
/// whatever the request before it sent, and from several threads at once. Run on both engines.
final class CurlHeaderLinesTests: XCTestCase {
    func testRequestsThatAlternateTheirFieldsEachSendTheirOwn() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let plans: [[String: String]] = [
            ["X-Token": "a"], ["X-Token": "a"], ["X-Token": "b"], [:], ["X-Token": "a"],
            ["X-Token": "a", "X-Other": "1"], ["Accept": "text/plain"], [:], ["X-Token": "b"],
        ]
        for (index, headers) in plans.enumerated() {
            let request = Request<Data>.get(server.url("/hello?n=\(index)"), headers: headers)
            XCTAssertNoThrow(try result(of: request, on: network)?.get())
            let sent = try XCTUnwrap(server.receivedRequests.last)
            XCTAssertEqual(sent.query, "n=\(index)")
            XCTAssertEqual(sent.headerValues("X-Token"), headers["X-Token"].map { [$0] } ?? [], "request \(index)")
            XCTAssertEqual(sent.headerValues("X-Other"), headers["X-Other"].map { [$0] } ?? [], "request \(index)")
            XCTAssertEqual(sent.headerValues("Accept"), [headers["Accept"] ?? "*/*"], "request \(index): one Accept, its own")
            XCTAssertEqual(sent.headerValues("User-Agent").count, 1, "request \(index)")
        }
    }

    func testABodyAndItsLengthAreNeverTakenFromTheRequestBefore() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        // The same fields, three bodies of different lengths and none: the lines differ by the
        // body's Content-Length, which is part of what they are kept for.
        for (index, text) in ["abc", "abcdefgh", "", "x"].enumerated() {
            let request = text.isEmpty
                ? Request<Data>.get(server.url("/echo?n=\(index)"), headers: ["X-Token": "same"])
                : Request<Data>(method: .post, url: server.url("/echo?n=\(index)"), headers: ["X-Token": "same"],
                                body: .data(Data(text.utf8), contentType: "text/plain"))
            XCTAssertNoThrow(try result(of: request, on: network)?.get())
            let sent = try XCTUnwrap(server.receivedRequests.last)
            XCTAssertEqual(sent.query, "n=\(index)")
            XCTAssertEqual(String(decoding: sent.body, as: UTF8.self), text)
            XCTAssertEqual(sent.headerValues("Content-Length"), text.isEmpty ? [] : [String(text.utf8.count)], "request \(index)")
        }
    }

    func testConcurrentBlockingCallsEachSendTheirOwnFields() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 8)
        let calls = 64
        let failures = Box<[String]>([])
        DispatchQueue.concurrentPerform(iterations: calls) { index in
            // Four distinct sets of fields, so that neighbouring calls on other threads keep
            // replacing what the network last built.
            let request = Request<Data>.get(server.url("/hello?n=\(index)"), headers: ["X-Id": "\(index % 4)"])
            if case let .failure(error) = network.scheduleSynchronously(request) {
                failures.mutate { $0?.append("\(index): \(error)") }
            }
        }
        XCTAssertEqual(failures.value ?? [], [])
        let received = server.receivedRequests.filter { $0.path == "/hello" }
        XCTAssertEqual(received.count, calls)
        for sent in received {
            let index = try XCTUnwrap(sent.query.flatMap { Int($0.dropFirst(2)) })
            XCTAssertEqual(sent.headerValues("X-Id"), ["\(index % 4)"], "call \(index) sent another call's field")
        }
    }
}
