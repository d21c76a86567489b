import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Work handed to the engine reaches it at once, whether its thread is busy or asleep: a start, a
/// cancel, a `cancelAll` that ends a blocking call.
///
/// The curl engine's loop sleeps in `curl_multi_poll` unless a poster wakes it, and posters wake
/// it only when it sleeps (``CurlLoop``). A wakeup lost in that hand-over would not hang a
/// request, only delay it: by up to a second when nothing runs, by libcurl's next timeout (about
/// 0.2 s, measured) while a transfer waits. So each test takes many such steps, one after
/// another, within a budget that a delay of that size at every step would overrun (measured with
/// the wakeup removed: each of these tests fails).
final class EngineWakeupTests: XCTestCase {
    private let steps = 60
    /// Far more than the steps need (about a millisecond each; a few under Thread Sanitizer), far
    /// less than 0.2 s each.
    private let budget: TimeInterval = 8

    func testRequestsScheduledFromTheirPredecessorsCompletionsEachStartAtOnce() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(limit: 1)
        let done = expectation(description: "the whole chain")
        let chain = Chain(network: network, url: server.url("/hello"), steps: steps) { done.fulfill() }
        chain.next()
        wait(for: [done], timeout: budget)
        XCTAssertEqual(chain.answers, Array(repeating: "hello", count: steps))
        XCTAssertEqual(server.requestCount, steps)
    }

    func testCancelsFromAnotherThreadEachEndTheirRequestAtOnce() throws {
        try cancelHeldRequestsOneAfterAnother { network, url, ended in
            let task = network.schedule(Request<Data>.get(url)) { ended($0) }
            return { task.cancel() }
        }
    }

    func testCancelAllEndsEachBlockingCallAtOnce() throws {
        try cancelHeldRequestsOneAfterAnother { network, url, ended in
            Thread { ended(network.scheduleSynchronously(Request<Data>.get(url), timeout: 30)) }.start()
            return { network.cancelAll() }
        }
    }

    /// `steps` times in a row: `start` begins a request to a route the server holds, handing its
    /// result to `ended`, and returns how to cancel it; that cancel runs, from another thread,
    /// once the server has the request. Every request must end cancelled, within the budget.
    private func cancelHeldRequestsOneAfterAnother(
        start: @escaping @Sendable (Network, URL, @escaping @Sendable (Result<Data, any Error>) -> Void) -> @Sendable () -> Void
    ) throws {
        let server = try makeServer()
        let arrivals = DispatchSemaphore(value: 0)
        holdRequests(at: "/held", on: server, arrived: { arrivals.signal() })
        let network = makeNetwork()
        let url = server.url("/held")
        let done = expectation(description: "every step")
        let outcomes = Box<[String]>([])
        let steps = steps
        DispatchQueue.global().async {
            for _ in 0..<steps {
                let ended = DispatchSemaphore(value: 0)
                let cancel = start(network, url) { result in
                    outcomes.mutate { $0?.append(Self.describe(result)) }
                    ended.signal()
                }
                guard arrivals.wait(timeout: .now() + 10) == .success else { break }
                cancel()
                guard ended.wait(timeout: .now() + 10) == .success else { break }
            }
            done.fulfill()
        }
        wait(for: [done], timeout: budget)
        XCTAssertEqual(outcomes.value, Array(repeating: "cancelled", count: steps))
    }

    private static func describe(_ result: Result<Data, any Error>) -> String {
        switch result {
        case .success(let data): return "\(data.count) bytes"
        case .failure(NetworkError.cancelled): return "cancelled"
        case .failure(let error): return "\(error)"
        }
    }
}

/// Schedules a request from the completion of the one before, `steps` times: each start reaches
/// the engine just as it finished the previous request, asleep or about to be.
private final class Chain: @unchecked Sendable {
    // @unchecked: `answers` is touched by one completion at a time, each scheduled by the one before.
    private let network: Network
    private let url: URL
    private let steps: Int
    private let finished: @Sendable () -> Void
    private(set) var answers: [String] = []

    init(network: Network, url: URL, steps: Int, finished: @escaping @Sendable () -> Void) {
        self.network = network
        self.url = url
        self.steps = steps
        self.finished = finished
    }

    func next() {
        network.schedule(Request<Data>.get(url).string()) { result in
            self.answers.append((try? result.get()) ?? "\(result)")
            if self.answers.count == self.steps { self.finished() } else { self.next() }
        }
    }
}
