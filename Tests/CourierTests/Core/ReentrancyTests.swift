import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Every kind of user code calls back into the same `Network` — schedules, cancels, blocking
/// calls on another thread, cancelAll — for in-memory and download transfers. Courier never runs
/// user code under a lock, so none of this may deadlock, stall another transfer, or make a
/// completion run twice. Run under Thread Sanitizer in CI.
final class ReentrancyTests: XCTestCase {
    /// Calls back into the network from wherever it is poked, and counts the sites.
    final class Reentry: Sendable {
        let network: Network
        let url: URL
        let followUps = DispatchGroup()
        private let sites = Locked<Set<String>>([])
        /// The tests' own transfers: every poke reads their state, which takes each transfer's
        /// lock, so user code run under one of those locks would deadlock here.
        let watched = Locked<[NetworkTask]>([])

        init(network: Network, url: URL) {
            self.network = network
            self.url = url
        }

        var visited: Set<String> { sites.withLock { $0 } }

        /// Schedules a request, schedules and cancels another, and starts a blocking call on
        /// another thread; none of them is waited for here.
        func poke(_ site: String) {
            sites.withLock { _ = $0.insert(site) }
            for task in watched.current { _ = (task.state, task.attemptCount) }
            let group = followUps
            group.enter()
            network.schedule(Request<Data>.get(url), callbackQueue: .global()) { _ in group.leave() }
            group.enter()
            network.schedule(Request<Data>.get(url), callbackQueue: .global()) { _ in group.leave() }.cancel()
            group.enter()
            let network = self.network, url = self.url
            DispatchQueue.global().async {
                _ = network.scheduleSynchronously(Request<Data>.get(url), timeout: 20)
                group.leave()
            }
        }
    }

    struct PokingObserver: NetworkObserver {
        let reentry: Reentry
        func willSend(_ request: URLRequest, context: RequestContext) { poke("willSend", request.url) }
        func didReceive(_ response: HTTPResponse, context: RequestContext) { poke("didReceive", response.url) }
        func didFail(_ error: NetworkError, context: RequestContext) { poke("didFail", context.url) }
        func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) { poke("didRetry", context.url) }

        /// Only the tests' own requests poke; the follow-ups would otherwise poke for ever.
        private func poke(_ site: String, _ url: URL?) {
            if url?.path.hasPrefix("/reenter") == true { reentry.poke(site) }
        }
    }

    struct PokingInterceptor: RequestInterceptor {
        let reentry: Reentry
        func adapt(_ request: URLRequest, context: RequestContext,
                   completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            if request.url?.path.hasPrefix("/reenter") == true { reentry.poke("adapt") }
            completion(.success(request))
        }
        func retry(_ request: URLRequest, failedWith error: NetworkError, response: HTTPResponse?,
                   context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
            if request.url?.path.hasPrefix("/reenter") == true { reentry.poke("retry") }
            completion(.useDefault)
        }
    }

    /// A request whose own code (validate, output, convertError) pokes too.
    struct PokingRequest: NetworkRequest {
        let url: URL
        let reentry: Reentry
        func makeURL() throws -> URL { url }
        var retryPolicy: RetryPolicy? { RetryPolicy(maxAttempts: 2, baseDelay: 0.001) }
        func validate(_ response: HTTPResponse) throws {
            reentry.poke("validate")
            guard response.isSuccess else { throw NetworkError.httpStatus(response) }
        }
        func output(from body: Data, response: HTTPResponse) throws -> Data {
            reentry.poke("output")
            return body
        }
        func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
            reentry.poke("convertError")
            return error
        }
    }

    private func makeReentrantNetwork() throws -> (Network, Reentry, TestServer) {
        let server = try makeServer().withStandardRoutes()
        server.route("/reenter/ok") { request, writer in writer.serve(randomBytes(300_000), etag: "\"r\"", request: request) }
        server.route("/reenter/fail") { _, writer in writer.respond(status: 503, text: "busy") }
        let network = makeNetwork(limit: 3)
        let reentry = Reentry(network: network, url: server.url("/hello"))
        network.observers = [PokingObserver(reentry: reentry)]
        network.interceptors = [PokingInterceptor(reentry: reentry)]
        return (network, reentry, server)
    }

    /// Waits for one completion per call, then for every follow-up the pokes started; fails if
    /// anything ran twice or never finished.
    private func runAll(_ reentry: Reentry, _ calls: [(String, (@escaping @Sendable () -> Void) -> NetworkTask)]) {
        let counts = Locked<[String: Int]>([:])
        var expectations: [XCTestExpectation] = []
        for (name, call) in calls {
            let done = expectation(description: name)
            expectations.append(done)
            let task = call {
                counts.withLock { $0[name, default: 0] += 1 }
                reentry.poke("completion")
                done.fulfill()
            }
            reentry.watched.withLock { $0.append(task) }
        }
        wait(for: expectations, timeout: 30)
        XCTAssertEqual(reentry.followUps.wait(timeout: .now() + 30), .success, "a follow-up request never finished")
        XCTAssertEqual(counts.current, Dictionary(uniqueKeysWithValues: calls.map { ($0.0, 1) }))
    }

    func testUserCodeCallsBackIntoTheNetwork() throws {
        let (network, reentry, server) = try makeReentrantNetwork()
        let folder = try makeTemporaryDirectory()
        let progressPoked = Locked(false)
        let progress: @Sendable (TransferProgress) -> Void = { _ in
            // Once per transfer kind is enough to prove the point without flooding the server.
            if progressPoked.withLock({ seen in defer { seen = true }; return !seen }) { reentry.poke("progress") }
        }
        runAll(reentry, [
            ("data ok", { done in
                network.schedule(PokingRequest(url: server.url("/reenter/ok"), reentry: reentry), progress: progress) { _ in done() }
            }),
            ("data failing", { done in
                network.schedule(PokingRequest(url: server.url("/reenter/fail"), reentry: reentry)) { _ in done() }
            }),
            ("download ok", { done in
                network.download(PokingRequest(url: server.url("/reenter/ok"), reentry: reentry),
                                 to: folder.appendingPathComponent("ok.bin"), progress: progress) { _ in done() }
            }),
            ("download failing", { done in
                network.download(PokingRequest(url: server.url("/reenter/fail"), reentry: reentry),
                                 to: folder.appendingPathComponent("fail.bin")) { _ in done() }
            }),
        ])
        XCTAssertEqual(reentry.visited, ["willSend", "didReceive", "didFail", "didRetry", "adapt", "retry",
                                         "validate", "output", "convertError", "progress", "completion"])
    }

    func testCancelAllFromUserCodeEndsEachTransferOnce() throws {
        let (network, reentry, server) = try makeReentrantNetwork()
        let folder = try makeTemporaryDirectory()
        // An observer that cancels everything as soon as a response arrives.
        struct Canceller: NetworkObserver {
            let network: Network
            func didReceive(_ response: HTTPResponse, context: RequestContext) { network.cancelAll() }
        }
        network.observers.append(Canceller(network: network))
        runAll(reentry, (0..<4).map { index in
            ("transfer \(index)", { done in
                let request = PokingRequest(url: server.url("/reenter/ok"), reentry: reentry)
                if index.isMultiple(of: 2) {
                    return network.schedule(request) { _ in done() }
                } else {
                    return network.download(request, to: folder.appendingPathComponent("\(index).bin")) { _ in done() }
                }
            })
        })
    }
}
