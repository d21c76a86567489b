// Deliberately `import Courier` and XCTest alone: no Foundation, no FoundationNetworking. The
// types below are FoundationNetworking's on Linux; this file compiles only while Courier
// re-exports them (Sources/Courier/Exports.swift), as a new user's code expects.
import Courier
import TestSupport
import XCTest

/// An interceptor and an observer written as a user writes them, naming `URLRequest`.
private struct StampInterceptor: RequestInterceptor {
    func adapt(_ request: URLRequest, context: RequestContext,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var stamped = request
        stamped.setValue("1", forHTTPHeaderField: "X-Stamp")
        completion(.success(stamped))
    }
}

private final class SentURLs: NetworkObserver, @unchecked Sendable {
    // The lock guards `urls`; the observer is called from the network's queues.
    private let lock = NSLock()
    private var urls: [URL] = []
    var sent: [URL] { lock.withLock { urls } }
    func willSend(_ request: URLRequest, context: RequestContext) {
        lock.withLock { urls += request.url.map { [$0] } ?? [] }
    }
}

final class ImportCourierAloneTests: XCTestCase {
    func testFoundationNetworkingTypesAreUsableWithImportCourierAlone() throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stamp") { request, writer in
            writer.respond(status: 200, text: request.header("X-Stamp") ?? "none")
        }
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "import-alone"))
        network.interceptors = [StampInterceptor()]
        let observer = SentURLs()
        network.observers = [observer]

        let response = try network.scheduleSynchronously(Request<Data>.get(server.url("/stamp")), timeout: 10).get()
        let http: HTTPURLResponse? = HTTPURLResponse(url: server.url("/"), statusCode: 200, httpVersion: nil, headerFields: nil)
        XCTAssertEqual(http?.statusCode, 200)
        XCTAssertEqual(String(decoding: response, as: UTF8.self), "1", "the interceptor's URLRequest was sent")
        XCTAssertEqual(observer.sent.count, 1)
    }
}
