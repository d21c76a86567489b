import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A method goes into the request line as it is: one with CR LF or a space would write a
/// request line, headers and a second request of its own. A method must be an RFC 9110 token,
/// whichever way it reaches the request, or nothing is sent.
final class MethodValidationTests: XCTestCase {
    /// What a hostile method would smuggle: its own target, a header, and a second request.
    private static let smuggling = "GET /smuggled HTTP/1.1\r\nX-Smuggled: 1\r\n\r\nDELETE"

    /// A request whose `URLRequest` is built by hand, as an app overriding `makeURLRequest` would.
    private struct HandBuilt: NetworkRequest {
        typealias Output = Data
        let url: URL
        let method: String
        func makeURL() throws -> URL { url }
        func makeURLRequest() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            return request
        }
        func output(from body: Data, response: HTTPResponse) throws -> Data { body }
    }

    /// An interceptor that replaces the method.
    private struct SetsMethod: RequestInterceptor {
        let method: String
        func adapt(_ request: URLRequest, context: RequestContext,
                   completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            var request = request
            request.httpMethod = method
            completion(.success(request))
        }
    }

    private func assertRefused<T>(_ result: Result<T, any Error>?, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .invalidRequest(message)? = networkError(result, file: file, line: line) else {
            return XCTFail("\(what): expected invalidRequest, got \(String(describing: result))", file: file, line: line)
        }
        XCTAssertTrue(message.contains("method"), "\(what): \(message)", file: file, line: line)
        XCTAssertFalse(message.contains("\r\n"), "\(what): the message escapes what it quotes: \(message)", file: file, line: line)
    }

    func testAMethodThatIsNotATokenIsRefusedOnEveryPathAndNothingReachesTheWire() throws {
        let capture = try RawCaptureServer()
        addTeardownBlock { capture.stop() }
        let network = makeNetwork()
        let bad = [Self.smuggling, "GET /x", "GET\r\n", "PO\nST", "GE\u{0}T", "GÉT", ""]
        for method in bad {
            let request = Request<Data>(method: HTTPMethod(rawValue: method), url: capture.url)
            assertRefused(result(of: request, on: network), "Request with \(method.debugDescription)")
        }
        assertRefused(result(of: HandBuilt(url: capture.url, method: Self.smuggling), on: network), "makeURLRequest")
        let intercepted = makeNetwork()
        intercepted.interceptors = [SetsMethod(method: Self.smuggling)]
        assertRefused(result(of: Request<Data>.get(capture.url), on: intercepted), "interceptor")
        // Downloads and streams go through the same last check.
        let folder = try makeTemporaryDirectory()
        let download = network.downloadSynchronously(Request<Data>(method: HTTPMethod(rawValue: Self.smuggling), url: capture.url),
                                                     to: folder.appendingPathComponent("file"), timeout: 10)
        assertRefused(download, "download")
        XCTAssertEqual(fileNames(in: folder), [])

        XCTAssertEqual(capture.connectionCount, 0, "nothing may reach the server (\(network.engine))")
        XCTAssertEqual(capture.received.count, 0)
    }

    func testEveryTokenMethodIsStillSent() throws {
        let capture = try RawCaptureServer()
        addTeardownBlock { capture.stop() }
        let network = makeNetwork()
        for method in ["PROPFIND", "M-SEARCH", "X!#$%&'*+.^_`|~1"] {
            let outcome = result(of: Request<Data>(method: HTTPMethod(rawValue: method), url: capture.url), on: network)
            XCTAssertEqual(try outcome?.get(), Data("ok".utf8), method)
        }
        let wire = String(decoding: capture.received, as: UTF8.self)
        XCTAssertTrue(wire.contains("PROPFIND /ok HTTP/1.1\r\n"), wire)
        XCTAssertTrue(wire.contains("M-SEARCH /ok HTTP/1.1\r\n"), wire)
        XCTAssertTrue(wire.contains("X!#$%&'*+.^_`|~1 /ok HTTP/1.1\r\n"), wire)
    }
}
