import Courier
import Foundation
import XCTest

/// ``RequestBody/untypedFile(_:)``: a file streamed as the body with no `Content-Type`, as
/// `curl -T` sends it, for upload URLs whose signature covers the headers.
final class UntypedFileUploadTests: XCTestCase {
    func testAPutCarriesTheFileAndNoContentType() throws {
        let server = try makeServer().withStandardRoutes()
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try makeTemporaryDirectory().appendingPathComponent("archive.tar")
        try content.write(to: file)
        let body = RequestBody.untypedFile(file)
        XCTAssertEqual(body.contentType, "")
        let network = makeNetwork()
        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>(method: .put, url: server.url("/echo"), body: body), timeout: 30).get())
        let request = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(request.body, content)
        XCTAssertNil(request.header("Content-Type"), "no media type at all, on \(network.engine)")
        XCTAssertEqual(request.header("Content-Length"), String(content.count))

        // A type given in the headers is sent; .file guesses one from the extension.
        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>(method: .put, url: server.url("/echo"),
                                                                         headers: ["Content-Type": "application/x-tar"], body: body), timeout: 30).get())
        XCTAssertEqual(server.receivedRequests.last?.header("Content-Type"), "application/x-tar")
        XCTAssertEqual(RequestBody.file(file).contentType, "application/octet-stream")
    }

    func testAPostWithoutATypeGoesWithoutOneOnTheCurlEngine() throws {
        let server = try makeServer().withStandardRoutes()
        let file = try makeTemporaryDirectory().appendingPathComponent("payload")
        try Data("raw bytes".utf8).write(to: file)
        let network = makeNetwork()
        try XCTSkipUnless(network.engine == .curl, "FoundationNetworking labels a POST without a Content-Type as form data")
        XCTAssertNoThrow(try network.scheduleSynchronously(Request<Data>(method: .post, url: server.url("/echo"), body: .untypedFile(file)), timeout: 30).get())
        XCTAssertNil(server.receivedRequests.last?.header("Content-Type"), "libcurl's default form type is removed")
        XCTAssertEqual(server.receivedRequests.last?.body, Data("raw bytes".utf8))
    }
}
