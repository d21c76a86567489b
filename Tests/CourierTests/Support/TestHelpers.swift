import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A JSON model served by the test routes.
struct Post: Codable, Sendable, Equatable {
    let id: Int
    let title: String
}

/// A request type declared the way an app would declare one.
struct GetPost: DecodableRequest {
    typealias Output = Post
    let url: URL
    func makeURL() throws -> URL { url }
}

/// An error type of "the app's own", produced through `convertError`.
struct AppError: Error, Equatable {
    let status: Int?
    let message: String
}

extension XCTestCase {
    /// A loopback server that stops when the test ends.
    func makeServer() throws -> TestServer {
        let server = try TestServer()
        addTeardownBlock { server.stop() }
        return server
    }

    /// A network whose callbacks run on a private serial queue, and that cancels whatever is
    /// left when the test ends. No retries unless asked for, so that each test sees exactly the
    /// attempts it makes.
    func makeNetwork(limit: Int = 6, callbackQueue: DispatchQueue? = nil, retryPolicy: RetryPolicy = .none) -> Network {
        let network = Network(
            configuration: .ephemeral,
            callbackQueue: callbackQueue ?? DispatchQueue(label: "test.callbacks"),
            maximumConcurrentRequests: limit)
        network.retryPolicy = retryPolicy
        addTeardownBlock { network.cancelAll() }
        return network
    }

    /// Schedules `request` and waits (bounded) for its completion.
    func result<R: NetworkRequest>(
        of request: R, on network: Network, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Result<R.Output, any Error>? {
        let done = expectation(description: "completion")
        let box = Box<Result<R.Output, any Error>>()
        network.schedule(request) { result in
            box.value = result
            done.fulfill()
        }
        wait(for: [done], timeout: timeout)
        return box.value
    }

    /// Asserts that `result` failed with a ``NetworkError`` and returns it.
    @discardableResult
    func networkError<T>(
        _ result: Result<T, any Error>?, file: StaticString = #filePath, line: UInt = #line
    ) -> NetworkError? {
        guard case let .failure(error)? = result else {
            XCTFail("expected a failure, got \(String(describing: result))", file: file, line: line)
            return nil
        }
        guard let networkError = error as? NetworkError else {
            XCTFail("expected a NetworkError, got \(error)", file: file, line: line)
            return nil
        }
        return networkError
    }
}

/// A value shared between a test and its callbacks.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    init(_ value: Value? = nil) { stored = value }

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate(_ body: (inout Value?) -> Void) {
        lock.withLock { body(&stored) }
    }
}

/// Counts how often each request's completion ran, to prove "exactly once".
final class CompletionCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]
    private var outcomes: [String: Int] = [:]

    func record(_ id: Int, outcome: String) {
        lock.withLock {
            counts[id, default: 0] += 1
            outcomes[outcome, default: 0] += 1
        }
    }

    var total: Int { lock.withLock { counts.values.reduce(0, +) } }
    var duplicated: [Int] { lock.withLock { counts.filter { $0.value > 1 }.map(\.key) } }
    var distinct: Int { lock.withLock { counts.count } }
    var byOutcome: [String: Int] { lock.withLock { outcomes } }
}

/// Marks a queue so a callback can check that it really runs there
/// (`DispatchQueue` has no usable identity on Linux).
final class QueueMarker: Sendable {
    private let key = DispatchSpecificKey<Int>()
    let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
        queue.setSpecific(key: key, value: 1)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// Routes shared by many tests.
extension TestServer {
    /// A route that is busy once (`503`, `Retry-After: 0`, body `busy`) and then answers `200`
    /// with `headers` and `text`: what a retry needs to be seen.
    func routeBusyOnce(_ path: String, then text: String, headers: [String: String] = [:]) {
        let calls = Box<Int>(0)
        route(path) { _, writer in
            var call = 0
            calls.mutate { value in
                value = (value ?? 0) + 1
                call = value ?? 0
            }
            if call == 1 {
                writer.respond(status: 503, headers: ["Retry-After": "0"], text: "busy")
            } else {
                writer.respond(status: 200, headers: headers, text: text)
            }
        }
    }

    /// Installs the common routes and returns the server.
    @discardableResult
    func withStandardRoutes() -> TestServer {
        route("/hello") { _, writer in writer.respond(status: 200, headers: ["Content-Type": "text/plain"], text: "hello") }
        route("/post") { _, writer in writer.respond(json: #"{"id":1,"title":"First"}"#) }
        route("/echo") { request, writer in
            var headers = ["X-Method": request.method]
            headers["X-Content-Type"] = request.header("Content-Type") ?? "-"
            headers["X-Authorization"] = request.header("Authorization") ?? "-"
            writer.respond(status: 200, headers: headers, body: request.body)
        }
        route("/status") { request, writer in
            let code = Int(request.queryItems["code"] ?? "") ?? 500
            writer.respond(status: code, headers: ["X-Reason": "test"], text: "status \(code) body")
        }
        route("/empty") { _, writer in writer.respond(status: 204) }
        route("/bytes") { request, writer in
            let count = Int(request.queryItems["n"] ?? "") ?? 1024
            writer.respond(status: 200, body: Data(repeating: 0x61, count: count))
        }
        return self
    }
}

extension XCTestCase {
    /// A fresh folder under the system's temporary directory, removed when the test ends.
    func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Names of the files in `folder`, sorted.
    func fileNames(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}

/// Deterministic pseudo-random bytes, so a body has no repeating pattern a bug could hide in.
func randomBytes(_ count: Int, seed: UInt64 = 42) -> Data {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return Data(bytes)
}

/// The resident memory of this process, from /proc (Linux).
func residentMemoryBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kilobytes * 1024
}

/// Whether this process runs under Thread Sanitizer, whose shadow memory makes resident-memory
/// figures meaningless (every heap byte touched costs shadow bytes that are not Courier's).
let isThreadSanitizerActive: Bool = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil

/// Asserts a bound on resident-memory growth, except under Thread Sanitizer (see above).
func assertMemoryGrowth(_ growth: Int, below limit: Int, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
    print("\(what): resident memory grew by \(growth >> 10) KB\(isThreadSanitizerActive ? " (Thread Sanitizer: not checked)" : "")")
    guard !isThreadSanitizerActive else { return }
    XCTAssertLessThan(growth, limit, "\(what): resident memory grew by \(growth >> 20) MB", file: file, line: line)
}

extension XCTestCase {
    /// Registers a route that holds every request until the returned gate opens, then answers
    /// `200 text`. The gate opens at teardown at the latest (before the server stops: teardown
    /// blocks run last-in, first-out). `arrived` runs as each request comes in.
    /// A server whose `/stall` sends a head and 1,000 of 100,000 promised bytes, then nothing
    /// until the test ends.
    func stallingServer() throws -> TestServer {
        let server = try makeServer()
        let release = Gate()
        addTeardownBlock { release.open() }
        server.route("/stall") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "100000")])
            writer.write(Data(repeating: 0x61, count: 1_000))
            release.wait(timeout: 60)
        }
        return server
    }

    @discardableResult
    func holdRequests(at path: String, on server: TestServer, text: String = "late",
                      arrived: (@Sendable () -> Void)? = nil) -> Gate {
        let gate = Gate()
        addTeardownBlock { gate.open() }
        server.route(path) { _, writer in
            arrived?()
            gate.wait(timeout: 30)
            writer.respond(status: 200, text: text)
        }
        return gate
    }
}

extension TestServer {
    /// A route that announces `announcing` body bytes, sends `sending` of them and closes the
    /// connection: a server dying mid-body.
    func routeCuttingBody(_ path: String, announcing: Int, sending: Int) {
        route(path) { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", String(announcing))])
            writer.write(Data(repeating: 0x41, count: sending))
            writer.closeConnection()
        }
    }
}
