import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A route whose answers a test changes between requests, and that counts what reaches it: the
/// requests (method and header fields) in order.
final class CountingRoute: @unchecked Sendable {  // every field is read and written under `lock`.
    struct Answer {
        var status = 200
        var headers: [(String, String)] = []
        var body = Data("stored body".utf8)
    }

    private let lock = NSLock()
    private var answer = Answer()
    private var seen: [ServerRequest] = []

    init(on server: TestServer, path: String, _ answer: Answer = Answer()) {
        self.answer = answer
        server.route(path) { [self] request, writer in
            let current = lock.withLock { () -> Answer in
                seen.append(request)
                return self.answer
            }
            var fields = current.headers
            if current.status != 304 { fields.append(("Content-Length", String(current.body.count))) }
            writer.writeHead(status: current.status, headers: fields)
            if current.status != 304, request.method != "HEAD" { writer.write(current.body) }
        }
    }

    var requests: [ServerRequest] { lock.withLock { seen } }
    var count: Int { requests.count }

    func answer(_ status: Int = 200, _ headers: [(String, String)], body: String = "stored body") {
        lock.withLock { answer = Answer(status: status, headers: headers, body: Data(body.utf8)) }
    }
}

extension XCTestCase {
    /// A network with a cache of its own (memory only unless a folder is given).
    func makeCachingNetwork(memory: Int = 1 << 20, disk: Int = 0, folder: URL? = nil, limit: Int = 6) -> Network {
        let network = makeNetwork(limit: limit)
        network.cache = HTTPCache(memoryCapacity: memory, diskCapacity: disk, directory: folder)
        return network
    }

    /// A GET of `url` (blocking), with its body as the value.
    func cachedGET(_ url: URL, on network: Network, headers: [String: String] = [:], policy: URLRequest.CachePolicy? = nil,
               accepting statuses: Set<Int> = Set(200..<300)) throws -> Response<Data> {
        var request = Request<Data>.get(url).accepting(statusCodes: statuses)
        for (name, value) in headers { request.headers[name] = value }
        request.transferOptions.cachePolicy = policy
        return try network.scheduleSynchronously(request.withResponse(), timeout: 20).get()
    }

    /// An HTTP date `offset` seconds from now.
    func httpDate(_ offset: TimeInterval = 0) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date().addingTimeInterval(offset))
    }

    func temporaryFolder() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-test-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }
}
