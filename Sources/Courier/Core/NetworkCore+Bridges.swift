import Foundation

/// The two bridges every calling convention is built from. Each takes a `start` closure that
/// schedules one transfer on the core with ``CallbackTarget/immediate`` delivery and returns its
/// task, so the blocking and async variants of requests and downloads share one implementation.
///
/// `Output` need not be `Sendable`: the result is handed from the Courier thread that finishes
/// the transfer to the one waiting caller, and nothing else keeps it.
extension NetworkCore {
    /// Blocks the calling thread until the transfer ends, or until `timeout` (then the transfer
    /// is ended with ``NetworkError/timedOut(_:)``). See ``Network/scheduleSynchronously(_:timeout:progress:)``
    /// for why this cannot deadlock.
    ///
    /// `start` schedules the transfer with the target it is given: ``CallbackTarget/driven(_:)``
    /// when the transport lends the calling thread its tasks (the curl engine: the thread then runs
    /// the transfer itself instead of sleeping while another runs it), else
    /// ``CallbackTarget/immediate``.
    /// `cancellation`, if given, holds the transfer while the call waits (see ``CancellationToken``).
    func runBlocking<Output>(
        timeout: TimeInterval?,
        cancellation: CancellationToken? = nil,
        failure: (NetworkError) -> any Error,
        start: (CallbackTarget, @escaping @Sendable (Result<Output, any Error>) -> Void) -> NetworkTask
    ) -> Result<Output, any Error> {
        if let reason = deadlockReason() {
            return .failure(failure(.wouldDeadlock(reason)))
        }
        if cancellation?.isCancelled == true { return .failure(failure(.cancelled)) }
        let deadline = WaitDeadline(timeout)
        if deadline.hasPassed { return .failure(failure(.timedOut(TimeoutExceeded(kind: .blockingCall, seconds: timeout)))) }
        let driver = transport.makeCallerDriver()
        defer { driver?.finish() }
        let outcome = BlockingResult<Output>(driver: driver)
        let task = start(driver.map { .driven($0) } ?? .immediate) { outcome.set($0) }
        let held = cancellation?.hold(task)
        defer { cancellation?.release(held) }
        return outcome.wait(until: deadline.time) {
            // The wait ran out: end the transfer; its (now failed) completion fills the outcome.
            task.transfer.end(with: .timedOut(TimeoutExceeded(kind: .blockingCall, seconds: timeout)))
        }
    }

    /// Suspends until the transfer ends. Cancelling the calling `Task` cancels the transfer and
    /// throws `CancellationError`.
    func runAsync<Output>(
        start: (@escaping @Sendable (Result<Output, any Error>) -> Void) -> NetworkTask
    ) async throws -> Output {
        try Task.checkCancellation()
        let handle = CancellationHandle()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Output, any Error>, Never>) in
                handle.attach(start { result in
                    // Moved to the waiting task: the completion runs once and keeps nothing.
                    nonisolated(unsafe) let result = result
                    continuation.resume(returning: result)
                })
            }
        } onCancel: {
            handle.cancel()
        }
        if case .failure = result, Task.isCancelled { throw CancellationError() }
        return try result.get()
    }
}

/// A result handed from a Courier thread to a blocked caller.
final class BlockingResult<Output>: Sendable {
    /// Opened by ``set(_:)`` once the result is stored; what the caller waits on. Its flag, not
    /// `value != nil`, is what a driving caller asks after every turn of its loop: in this
    /// generic class every look at `value` fetches `Result<Output, any Error>`'s metadata at run
    /// time (about 450 instructions, several times a request); a `Bool` needs none.
    private let latch = Latch()
    /// The calling thread's driver when it runs the transfer itself: woken when the result is set
    /// from another thread, so that it stops driving.
    private let driver: (any CallerDriver)?
    /// Set once by the finishing thread, inside the latch's `open`, and read once by the waiting
    /// one after the latch has opened: the value (which may not be `Sendable`) moves from one to
    /// the other, never shared.
    private nonisolated(unsafe) var value: Result<Output, any Error>?

    init(driver: (any CallerDriver)? = nil) {
        self.driver = driver
    }

    func set(_ result: Result<Output, any Error>) {
        latch.open { value = result }
        driver?.wake()
    }

    /// Waits for the result; if `deadline` passes first, runs `onTimeout` (which must lead to
    /// ``set(_:)`` being called) and waits for that. With a driver, the waiting thread runs the
    /// transfer meanwhile, until the result is in or the deadline passes; the latch still
    /// decides which, as it does without one.
    func wait(until deadline: DispatchTime, onTimeout: () -> Void) -> Result<Output, any Error> {
        let latch = self.latch
        driver?.drive(until: deadline) { latch.isOpen }
        if !latch.wait(until: deadline) {
            onTimeout()
            // Either onTimeout's failure or a result that won the race is being delivered now
            // (with a driver, possibly by this thread: the task's cancellation is in its hands).
            driver?.drive(until: .distantFuture) { latch.isOpen }
            _ = latch.wait(until: .distantFuture)
        }
        // set(_:) stored a value before opening the latch, whose mutex orders the two.
        return value!
    }
}

/// When a blocking call's `timeout` runs out (``Network/scheduleSynchronously(_:timeout:progress:)``
/// and the other blocking calls): any value is taken, a negative one or NaN as 0; `nil` and
/// `.infinity` never. Dispatch clamps the sum, so a huge one never overflows.
struct WaitDeadline {
    let time: DispatchTime

    init(_ timeout: TimeInterval?) {
        // `max(0, .nan)` is 0.
        time = timeout.map { .now() + max(0, $0) } ?? .distantFuture
    }

    /// Whether the wait is over already: then the call returns ``NetworkError/timedOut(_:)`` without
    /// starting the request, rather than start it and cancel it in a race with its answer.
    var hasPassed: Bool { time != .distantFuture && DispatchTime.now() >= time }
}

/// Links a Swift `Task`'s cancellation to a ``NetworkTask`` that may not exist yet when the
/// cancellation arrives.
final class CancellationHandle: Sendable {
    private let state = Locked<(task: NetworkTask?, cancelled: Bool)>((nil, false))

    func attach(_ task: NetworkTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> NetworkTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
