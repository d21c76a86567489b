import Foundation

/// One way of running the same GET many times: raw URLSession, or one of Courier's calling
/// conventions. The small-request case times real network requests through it; the overhead case
/// times Courier's drivers against a stub transport.
protocol RequestDriver: Sendable {
    /// Runs `count` requests with at most `concurrency` in flight and returns once every one of
    /// them has completed. Failures are recorded in `failures`, not thrown, so one bad response
    /// cannot leave requests in flight behind the measurement's back.
    func run(count: Int, concurrency: Int, failures: FailureTally)
}

/// What every driver checks of a response: a figure measured over errors or short bodies is worthless.
struct ResponseCheck: Sendable {
    /// The body length every response must have, or `nil` to accept any.
    let expectedBytes: Int?

    func verify(statusCode: Int?, bodyBytes: Int, error: (any Error)?, into failures: FailureTally) {
        if let error {
            failures.record(String(describing: error))
        } else if statusCode != 200 {
            failures.record("status \(statusCode.map(String.init) ?? "none")")
        } else if let expectedBytes, bodyBytes != expectedBytes {
            failures.record("body of \(bodyBytes) bytes, expected \(expectedBytes)")
        }
    }

    func verify(_ result: Result<Data, any Error>, into failures: FailureTally) {
        switch result {
        // Courier only delivers success for an accepted (2xx) status; the stub and nginx send 200.
        case let .success(body): verify(statusCode: 200, bodyBytes: body.count, error: nil, into: failures)
        case let .failure(error): verify(statusCode: nil, bodyBytes: 0, error: error, into: failures)
        }
    }
}

/// Keeps at most `concurrency` callback-style operations in flight: `start` is called `count`
/// times and must call its argument exactly once when the operation completes. Returns when all
/// have completed. Shared by the raw URLSession and Courier callback drivers so that both are
/// paced by exactly the same code.
func runWithCallbacks(count: Int, concurrency: Int, start: (@escaping @Sendable () -> Void) -> Void) {
    let slots = DispatchSemaphore(value: max(1, concurrency))
    let group = DispatchGroup()
    for _ in 0..<count {
        slots.wait()
        group.enter()
        start {
            slots.signal()
            group.leave()
        }
    }
    group.wait()
}
