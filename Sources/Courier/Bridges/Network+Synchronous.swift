import Foundation

extension Network {
    /// Runs a request and blocks the calling thread until it ends; for scripts, command-line
    /// tools and code that cannot be asynchronous.
    ///
    /// Safe to call from any thread: the main thread (even when the callback queue is `.main`),
    /// a global queue, a completion handler of this same network, or a Swift `Task`. The wait
    /// never depends on the callback queue or on Swift concurrency's thread pool: the result is
    /// handed over by whichever Courier thread finishes the request. When called on one of
    /// Courier's own internal queues, where the request could never run, it returns
    /// ``NetworkError/wouldDeadlock(_:)`` at once instead of hanging.
    ///
    /// - Parameters:
    ///   - request: What to send and how to read the answer.
    ///   - timeout: How long to wait in all, time in the queue included; when it passes the
    ///     request is cancelled and the result is ``NetworkError/timedOut``. `nil` (the default)
    ///     waits as long as the request's own deadline allows.
    ///   - progress: Progress events, on a private serial queue (never the callback queue).
    /// - Returns: The output, or the error.
    public func scheduleSynchronously<R: NetworkRequest>(
        _ request: R,
        timeout: TimeInterval? = nil,
        progress: ((TransferProgress) -> Void)? = nil
    ) -> Result<R.Output, any Error> {
        if let reason = core.deadlockReason() {
            return .failure(request.convertError(.wouldDeadlock(reason), response: nil))
        }
        let outcome = BlockingResult<R.Output>()
        let task = core.schedule(request, target: .immediate, progress: progress) { outcome.set($0) }
        return outcome.wait(timeout: timeout) {
            // The wait ran out: end the request; its (now failed) completion fills the outcome.
            task.transfer.end(with: .timedOut)
        }
    }
}

/// A result handed from a Courier thread to a blocked caller.
final class BlockingResult<Output: Sendable>: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let result = Locked<Result<Output, any Error>?>(nil)

    func set(_ value: Result<Output, any Error>) {
        result.withLock { $0 = value }
        semaphore.signal()
    }

    /// Waits for the result; if `timeout` passes first, runs `onTimeout` (which must lead to
    /// ``set(_:)`` being called) and waits for that.
    func wait(timeout: TimeInterval?, onTimeout: () -> Void) -> Result<Output, any Error> {
        let deadline: DispatchTime = timeout.map { .now() + max(0, $0) } ?? .distantFuture
        if semaphore.wait(timeout: deadline) == .timedOut {
            onTimeout()
            // Either onTimeout's failure or a result that won the race is being delivered now.
            semaphore.wait()
        }
        // set(_:) stored a value before signalling.
        return result.withLock { $0! }
    }
}
