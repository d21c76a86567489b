@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The request the core and the engines pass along (``WireRequest``): built directly for
/// Courier's own request types, from `makeURLRequest()` for any other, and sent the same either
/// way, on both engines.
final class WireRequestTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1:8080/x")!

    /// A caller's type that builds its own `URLRequest`: Courier cannot know it did, so every
    /// caller type goes through `makeURLRequest()`.
    private struct OverridingRequest: NetworkRequest {
        typealias Output = Data
        let url: URL
        func makeURL() throws -> URL { url }
        var headers: [String: String] { ["X-From-Headers": "1"] }
        func makeURLRequest() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = "PUT"
            request.setValue("override", forHTTPHeaderField: "X-Built-By")
            request.httpBody = Data("from the override".utf8)
            return request
        }
        func output(from body: Data, response: HTTPResponse) throws -> Data { body }
    }

    func testNamesTakeFoundationNetworkingsFormForAnyTokenName() {
        // The form FoundationNetworking's setValue stores, which both engines must send alike.
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZqB09-_.!#$%&*+|~'`^")
        for _ in 0..<3000 {
            let name = String((0..<Int.random(in: 1...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            var foundation = URLRequest(url: url)
            foundation.setValue("1", forHTTPHeaderField: name)
            XCTAssertEqual(WireRequest.canonicalName(name), foundation.allHTTPHeaderFields?.keys.first, name)
        }
        XCTAssertEqual(WireRequest.canonicalName("x-api-KEY"), "X-Api-Key")
        XCTAssertEqual(WireRequest.canonicalName("Content-Type"), "Content-Type")
    }

    func testSettingAFieldReplacesItInPlaceIgnoringCaseAndNilRemovesIt() {
        var request = WireRequest(url: url)
        request.set("1", for: "accept")
        request.set("2", for: "x-one")
        request.set("3", for: "ACCEPT")
        XCTAssertEqual(request.fields.map(\.name), ["Accept", "X-One"])
        XCTAssertEqual(request.value(for: "accept"), "3")
        request.set(nil, for: "Accept")
        XCTAssertEqual(request.fields.map(\.name), ["X-One"])
        XCTAssertFalse(request.has("accept"))
    }

    func testCourierRequestsAreBuiltWithoutAURLRequestAndAsTheDefaultWouldBuildOne() throws {
        let request = Request<Data>(method: .post, url: url, headers: ["x-trace": "7", "Content-Type": "text/plain"],
                                    body: .text("hello"), authentication: .bearer("t0ken"))
        let wire = try request.wireRequest()
        XCTAssertNil(wire.source, "no URLRequest was made on the way")
        let reference = try request.makeURLRequest()
        XCTAssertEqual(wire.method, reference.httpMethod)
        XCTAssertEqual(wire.url, reference.url)
        XCTAssertEqual(wire.body, reference.httpBody)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: wire.fields.map { ($0.name, $0.value) }), reference.allHTTPHeaderFields)
        // And back: what an interceptor or the URLSession engine is given.
        XCTAssertEqual(wire.urlRequest.allHTTPHeaderFields, reference.allHTTPHeaderFields)
        XCTAssertEqual(wire.urlRequest.httpMethod, "POST")
        XCTAssertEqual(wire.urlRequest.httpBody, Data("hello".utf8))
        // The coders' scope is Courier's own too.
        let scoped = CodingScopedRequest(base: request, coders: SharedCoders(encoder: JSONEncoder(), decoder: JSONDecoder()))
        XCTAssertNil(try scoped.wireRequest().source)
    }

    func testAURLRequestACallerBuiltIsKeptWhole() throws {
        var built = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 12)
        built.httpShouldHandleCookies = false
        built.setValue("1", forHTTPHeaderField: "X-A")
        let wire = try WireRequest(built)
        XCTAssertFalse(wire.urlRequest.httpShouldHandleCookies, "what the value does not model comes back as it was")
        XCTAssertEqual(wire.timeoutInterval, 12)
        var changed = wire
        changed.set("2", for: "X-B")
        changed.url = URL(string: "http://127.0.0.1:8080/y")!
        let back = changed.urlRequest
        XCTAssertFalse(back.httpShouldHandleCookies)
        XCTAssertEqual(back.allHTTPHeaderFields, ["X-A": "1", "X-B": "2"])
        XCTAssertEqual(back.url?.path, "/y")
        XCTAssertEqual(back.cachePolicy, .reloadIgnoringLocalCacheData)
        XCTAssertThrowsError(try WireRequest({ var noURL = URLRequest(url: url); noURL.url = nil; return noURL }()))
    }

    func testBothKindsOfRequestSendTheSameNamesAndAnOverrideIsHonoured() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let plain = Request<Data>(method: .post, url: server.url("/echo"), headers: ["x-api-key": "k", "content-type": "text/plain"],
                                  body: .text("hi"))
        XCTAssertNoThrow(try result(of: plain, on: network)?.get())
        let sent = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(sent.headers.first { $0.name.lowercased() == "x-api-key" }?.name, "X-Api-Key",
                       "the name as URLRequest would have sent it, on both engines")
        XCTAssertEqual(sent.headers.filter { $0.name.lowercased() == "content-type" }.map(\.value), ["text/plain"])
        XCTAssertEqual(sent.body, Data("hi".utf8))

        XCTAssertNoThrow(try result(of: OverridingRequest(url: server.url("/echo")), on: network)?.get())
        let overridden = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(overridden.method, "PUT")
        XCTAssertEqual(overridden.headers.first { $0.name == "X-Built-By" }?.value, "override")
        XCTAssertNil(overridden.headers.first { $0.name == "X-From-Headers" }, "the override decides, not `headers`")
        XCTAssertEqual(overridden.body, Data("from the override".utf8))
    }
}
