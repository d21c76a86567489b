import Courier
import Foundation

/// Courier, in one of its calling conventions, running `request` on `network`.
///
/// The network's `maximumConcurrentRequests` is set to the benchmark's concurrency by the caller;
/// the driver itself keeps exactly `concurrency` requests outstanding, the way an application
/// using that convention would.
struct CourierDriver: RequestDriver {
    enum Style: String, CaseIterable {
        /// `schedule(_:completion:)`, paced by a semaphore like the raw URLSession driver.
        case callback
        /// `scheduleSynchronously`, from `concurrency` threads each looping.
        case blocking
        /// `response(for:)`, from a task group keeping `concurrency` child tasks running.
        case async
    }

    let style: Style
    let network: Network
    let request: Request<Data>
    let check: ResponseCheck

    func run(count: Int, concurrency: Int, failures: FailureTally) {
        switch style {
        case .callback: runCallbacks(count: count, concurrency: concurrency, failures: failures)
        case .blocking: runBlocking(count: count, concurrency: concurrency, failures: failures)
        case .async: runAsync(count: count, concurrency: concurrency, failures: failures)
        }
    }

    private func runCallbacks(count: Int, concurrency: Int, failures: FailureTally) {
        runWithCallbacks(count: count, concurrency: concurrency) { done in
            network.schedule(request) { result in
                check.verify(result, into: failures)
                done()
            }
        }
    }

    /// One thread per request in flight, as a command-line tool with a worker pool would do.
    /// Threads take the next request number from a shared counter so that none idles early.
    private func runBlocking(count: Int, concurrency: Int, failures: FailureTally) {
        let issued = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<min(max(1, concurrency), count) {
            group.enter()
            let thread = Thread { [self] in
                while issued.withLock({ issued -> Bool in
                    guard issued < count else { return false }
                    issued += 1
                    return true
                }) {
                    check.verify(network.scheduleSynchronously(request), into: failures)
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }

    /// The calling thread (the main thread, not one of the cooperative pool's) waits for one
    /// detached task that runs the requests.
    private func runAsync(count: Int, concurrency: Int, failures: FailureTally) {
        let finished = DispatchSemaphore(value: 0)
        Task.detached { [self] in
            if concurrency <= 1 {
                for _ in 0..<count { await one(failures) }
            } else {
                await withTaskGroup(of: Void.self) { group in
                    var started = 0
                    while started < min(concurrency, count) {
                        group.addTask { await one(failures) }
                        started += 1
                    }
                    // Each time one finishes, start the next: `concurrency` stay in flight.
                    for await _ in group where started < count {
                        group.addTask { await one(failures) }
                        started += 1
                    }
                }
            }
            finished.signal()
        }
        finished.wait()
    }

    private func one(_ failures: FailureTally) async {
        do {
            check.verify(.success(try await network.response(for: request)), into: failures)
        } catch {
            check.verify(.failure(error), into: failures)
        }
    }
}
