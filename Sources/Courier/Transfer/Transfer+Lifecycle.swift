import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The life of one transfer as a value: events in, one action out.
///
/// Every legal transition is in this file, and nothing else decides where a transfer is in its
/// life. The owner (``Transfer``) keeps the value under its lock, feeds it each event, and
/// carries out the returned ``Action`` after releasing the lock — so no user code (interceptors,
/// observers, completions) ever runs while the state is locked, and the machine itself can be
/// tested without sockets, threads or timers.
///
/// **Exactly once.** Only three transitions reach an end (`finished` or `cancelled`), and each
/// returns the one ``Action/end(_:)`` of the transfer. In an ended state every event returns
/// ``Action/none`` — or, for a slot or a task that arrives too late, the action that gives it
/// back — so whatever races (a cancel against a completion, the deadline against a retry), one
/// delivery comes out.
///
/// `Task` is the transport task type (`any TransportTask` in the library; a plain class in tests).
struct TransferLifecycle<Task> {
    enum Phase {
        /// Made, not submitted yet.
        case idle
        /// The interceptors are adapting the next attempt. Holds no slot.
        case adapting
        /// Waiting for a slot.
        case queued
        /// Holds a slot; the transport task is being made.
        case starting
        /// Holds a slot; the transport task is in flight.
        case running(Task)
        /// Holds a slot; the task is over and its outcome is being judged (validated, decoded,
        /// or put to the retry policy).
        case processing
        /// Between attempts (waiting out a retry delay). Holds no slot.
        case backingOff
        /// Ended with a result, success or failure.
        case finished
        /// Ended by a cancel.
        case cancelled
    }

    /// What the owner must do after an event.
    enum Action {
        /// Nothing.
        case none
        /// Run the interceptors' `adapt` for the next attempt (`attempt` is its number) and
        /// report with ``adapted(_:)``.
        case adapt(attempt: Int)
        /// Ask the request queue for a slot; it answers with ``slotGranted()``.
        case enqueue
        /// A slot was granted to a transfer that had ended meanwhile: give it back.
        case releaseSlot
        /// Make the transport task for `request` (an attempt, or a restart of one) and report
        /// with ``taskCreated(_:)`` or ``taskCreationFailed(_:)``.
        case makeTask(URLRequest)
        /// Resume the task just made; arm the deadline timer first if `armDeadline` (the
        /// deadline runs from the first attempt's start and covers every attempt).
        case resume(Task, armDeadline: Bool)
        /// The task was made for a transfer that ended meanwhile: drop it, never resumed.
        case discard(Task)
        /// The attempt failed: ask the interceptors and the retry policy whether to go again,
        /// and report with ``retryDecided(delay:)``.
        case askRetry(NetworkError, response: HTTPResponse?, request: URLRequest, attempt: Int)
        /// Wait `delay` seconds, then report ``backoffElapsed()``. The slot is handed back now.
        case backOff(delay: TimeInterval, after: NetworkError, attempt: Int)
        /// The transfer has ended: clean up and deliver. Returned once per transfer.
        case end(Ending)
    }

    /// How a transfer ended, and what the owner must release.
    struct Ending {
        enum Outcome {
            /// The attempt's output is accepted: deliver it.
            case success
            /// A failure the caller receives (after `convertError`); observers hear of it.
            case failure(NetworkError, response: HTTPResponse?)
            /// An error of the request's own making (thrown by its `validate`), delivered as it is.
            case rejected(any Error)
        }

        let outcome: Outcome
        /// The transport task still in flight, to be cancelled (off the caller's thread).
        let taskToCancel: Task?
        /// Whether the transfer held a slot. With `taskToCancel` the slot stays busy until the
        /// transport confirms the task's end; otherwise it is free at once.
        let heldSlot: Bool
        /// Whether the caller cancelled (the public state becomes `.cancelled`).
        var wasCancelled: Bool {
            if case .failure(.cancelled, _) = outcome { return true }
            return false
        }
    }

    private(set) var phase: Phase = .idle
    /// Attempts started so far.
    private(set) var attempts = 0
    /// The current attempt's request, after the interceptors (and after a followed redirect).
    private(set) var request: URLRequest?
    /// Redirects the current attempt has followed.
    private(set) var redirects = 0
    private var deadlineArmed = false
    /// The failure put to the retry policy, delivered if it says no.
    private var failureBeingRetried: (error: NetworkError, response: HTTPResponse?)?

    init() {}

    // MARK: - Events

    /// The transfer was scheduled and its request built.
    mutating func submit() -> Action {
        guard case .idle = phase else { return .none }
        phase = .adapting
        return .adapt(attempt: 1)
    }

    /// The interceptors answered for the next attempt.
    mutating func adapted(_ result: Result<URLRequest, NetworkError>) -> Action {
        guard case .adapting = phase else { return .none }  // ended while adapting
        switch result {
        case let .success(adapted):
            request = adapted
            phase = .queued
            return .enqueue
        case let .failure(error):
            return end(.failure(error, response: nil))
        }
    }

    /// The request queue gave the transfer a slot.
    mutating func slotGranted() -> Action {
        guard case .queued = phase, let request else {
            // Cancelled while it waited (or never queued): the slot goes straight back.
            return .releaseSlot
        }
        phase = .starting
        attempts += 1
        redirects = 0
        return .makeTask(request)
    }

    /// The transport task for the current attempt exists (not yet resumed).
    mutating func taskCreated(_ task: Task) -> Action {
        guard case .starting = phase else { return .discard(task) }
        phase = .running(task)
        defer { deadlineArmed = true }
        return .resume(task, armDeadline: !deadlineArmed)
    }

    /// The transport task could not be made (an unreadable upload file, say): a final failure.
    mutating func taskCreationFailed(_ error: NetworkError) -> Action {
        guard case .starting = phase else { return .none }
        return end(.failure(error, response: nil))
    }

    /// A redirect of the current attempt: whether it may be followed (`maximum` not reached).
    mutating func redirected(maximum: Int) -> Bool {
        guard case .running = phase else { return false }
        redirects += 1
        return redirects <= maximum
    }

    /// The transport task is over (its last event has arrived); its outcome is being judged.
    mutating func taskCompleted() -> Action {
        guard case .running = phase else { return .none }
        phase = .processing
        return .none
    }

    /// The same attempt goes on with a new task: a redirect Courier follows itself (`request`
    /// is where it leads), or a download starting over (`request` is `nil`: the same one).
    mutating func restart(with next: URLRequest?) -> Action {
        guard case .processing = phase, let current = request else { return .none }
        request = next ?? current
        phase = .starting
        return .makeTask(request ?? current)
    }

    /// The attempt's outcome is accepted: the transfer succeeds.
    mutating func succeeded() -> Action {
        guard case .processing = phase else { return .none }
        return end(.success)
    }

    /// The attempt's outcome is an error of the request's own making: a final failure.
    mutating func rejected(_ error: any Error) -> Action {
        guard case .processing = phase else { return .none }
        return end(.rejected(error))
    }

    /// The attempt failed (its task is over): the retry policy decides what comes next.
    mutating func attemptFailed(_ error: NetworkError, response: HTTPResponse?) -> Action {
        guard case .processing = phase, let request else { return .none }
        failureBeingRetried = (error, response)
        return .askRetry(error, response: response, request: request, attempt: attempts)
    }

    /// The attempt failed in a way no retry can mend: the transfer fails at once.
    mutating func failedForGood(_ error: NetworkError, response: HTTPResponse?) -> Action {
        guard case .processing = phase else { return .none }
        return end(.failure(error, response: response))
    }

    /// The interceptors and the retry policy answered: wait `delay` and go again, or (`nil`) fail.
    mutating func retryDecided(delay: TimeInterval?) -> Action {
        guard case .processing = phase, let failure = failureBeingRetried else { return .none }
        failureBeingRetried = nil
        guard let delay else { return end(.failure(failure.error, response: failure.response)) }
        phase = .backingOff
        return .backOff(delay: delay, after: failure.error, attempt: attempts)
    }

    /// The retry delay has passed: adapt and queue the next attempt.
    mutating func backoffElapsed() -> Action {
        guard case .backingOff = phase else { return .none }
        phase = .adapting
        return .adapt(attempt: attempts + 1)
    }

    /// Ends the transfer early, whatever it is doing: a cancel (``NetworkError/cancelled``),
    /// the deadline (``NetworkError/timedOut``), or a body that cannot go on (too large, disk
    /// full). A running task is cancelled.
    mutating func abort(_ error: NetworkError) -> Action {
        end(.failure(error, response: nil))
    }

    // MARK: - Views

    /// Whether the transfer has ended.
    var hasEnded: Bool {
        switch phase {
        case .finished, .cancelled: return true
        default: return false
        }
    }

    /// The public view of the phase.
    var publicState: NetworkTask.State {
        switch phase {
        case .idle, .adapting, .queued: return attempts == 0 ? .queued : .running
        case .starting, .running, .processing, .backingOff: return .running
        case .finished: return .finished
        case .cancelled: return .cancelled
        }
    }

    // MARK: - The one way to end

    private mutating func end(_ outcome: Ending.Outcome) -> Action {
        let task: Task?
        let heldSlot: Bool
        switch phase {
        case .finished, .cancelled: return .none
        case .idle, .adapting, .queued, .backingOff: (task, heldSlot) = (nil, false)
        case .starting, .processing: (task, heldSlot) = (nil, true)
        case let .running(running): (task, heldSlot) = (running, true)
        }
        let ending = Ending(outcome: outcome, taskToCancel: task, heldSlot: heldSlot)
        phase = ending.wasCancelled ? .cancelled : .finished
        failureBeingRetried = nil
        return .end(ending)
    }
}
