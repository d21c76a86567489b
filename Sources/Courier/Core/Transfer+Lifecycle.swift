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
/// **Exactly once.** Every transition that reaches an end (`finished` or `cancelled`) goes
/// through the one private `end(_:)`, which returns the one ``Action/end(_:)`` of the transfer.
/// In an ended state every event returns ``Action/none`` — or, for a slot or a task that arrives
/// too late, the action that gives it back — so whatever races (a cancel against a completion,
/// the deadline against a retry), one delivery comes out.
///
/// **Redirects** are a sub-state of ``Phase/running(_:)`` (``redirect``, a ``RedirectState``): what
/// the current task's redirect came to decides where its head, its body and its end go. It is kept
/// beside the phase rather than in its payload so that matching the phase (under the transfer's
/// lock, per event) never copies a request or a response (measured: a few hundred instructions a
/// request).
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
        /// Holds a slot; the transport task is in flight. ``TransferLifecycle/redirect`` is what
        /// the redirect it met, if any, came to.
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

    /// What a redirect the current task met came to. A task meets at most one it does not let
    /// the transport follow: it ends after that one.
    enum RedirectState {
        /// None met, or each followed by the transport.
        case none
        /// A redirect Courier follows itself with a new task once this one is over: a `307`/`308`
        /// of a request with a body (FoundationNetworking would drop the body), or one past what
        /// the transport follows within one task (``Transport/redirectsFollowedPerTask``). This
        /// task's head and body are nobody's answer.
        case followAfterTask(WireRequest)
        /// A redirect to a scheme Courier refuses: the attempt fails with this once the task is over.
        case refused(NetworkError)
        /// The redirect left unfollowed at the limit (its head): the attempt fails with
        /// ``NetworkError/tooManyRedirects(_:)``.
        case limitReached(HTTPResponse)
    }

    /// A redirect the current task met, as the redirect policy judged it (see
    /// ``redirectMet(_:maximum:)``).
    enum RedirectProposal {
        /// To a scheme Courier does not follow: `error` says which.
        case refused(NetworkError)
        /// To be followed with `next`, which must be sent by a new task when `replaysBody`
        /// (see ``RedirectState/followAfterTask(_:)``).
        case follow(WireRequest, head: HTTPResponse, replaysBody: Bool)
    }

    /// Where a response head of the current task goes (see ``headRoute``).
    enum HeadRoute {
        /// To the body: it is the attempt's answer.
        case body
        /// Nowhere: it belongs to a redirect Courier follows itself.
        case skip
        /// It is the redirect left unfollowed at the limit: end the transfer with it.
        case redirectLimitReached
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
        case makeTask(WireRequest)
        /// Resume the task just made; arm the deadline timer first if `armDeadline` (the
        /// deadline runs from the first attempt's start and covers every attempt).
        case resume(Task, armDeadline: Bool)
        /// The task was made for a transfer that ended meanwhile: drop it, never resumed.
        case discard(Task)
        /// The attempt failed: ask the interceptors and the retry policy whether to go again,
        /// and report with ``retryDecided(delay:)``.
        case askRetry(NetworkError, response: HTTPResponse?, request: WireRequest, attempt: Int)
        /// Wait `delay` seconds, then report ``backoffElapsed()``. The slot is handed back now.
        case backOff(delay: TimeInterval, after: NetworkError, attempt: Int)
        /// Tell the observers of the redirect, and follow it: the transport goes on with `next`
        /// (`byTransport`), or Courier does once the task is over (``followRedirect(_:)``).
        case redirect(WireRequest, byTransport: Bool)
        /// The task is over and was a redirect Courier follows itself: drop what the body
        /// received and make a new task for `next` on the start queue (``restart(with:)``).
        case followRedirect(WireRequest)
        /// The task is over: hand its outcome to the body and judge it. `redirectLimitHit` is
        /// the redirect it stopped at, at the limit, if any.
        case judge(redirectLimitHit: HTTPResponse?)
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
    /// What the running task's redirect came to; ``RedirectState/none`` in every other phase.
    private(set) var redirect: RedirectState = .none
    /// Attempts started so far.
    private(set) var attempts = 0
    /// The current attempt's request, after the interceptors (and after a followed redirect).
    private(set) var request: WireRequest?
    /// Redirects the current attempt has followed.
    private(set) var redirects = 0
    /// Redirects the current task has let the transport follow.
    private(set) var redirectsByTask = 0
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
    mutating func adapted(_ result: Result<WireRequest, NetworkError>) -> Action {
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
        redirect = .none
        redirectsByTask = 0
        defer { deadlineArmed = true }
        return .resume(task, armDeadline: !deadlineArmed)
    }

    /// The transport task could not be made (an unreadable upload file, say): a final failure.
    mutating func taskCreationFailed(_ error: NetworkError) -> Action {
        guard case .starting = phase else { return .none }
        return end(.failure(error, response: nil))
    }

    /// The current task met a redirect (the network follows redirects). Followed while the
    /// attempt's redirects stay within `maximum`; ``Action/none`` tells the transport to stop
    /// there, the redirect response then ending its task. The transport follows it within the
    /// task while the task has followed fewer than `followedPerTask` (`nil`: no ceiling);
    /// past that, Courier follows it with a new task.
    mutating func redirectMet(_ proposal: RedirectProposal, maximum: Int, followedPerTask: Int? = nil) -> Action {
        guard case .running = phase, case .none = redirect else { return .none }
        switch proposal {
        case let .refused(error):
            redirect = .refused(error)
            return .none
        case let .follow(next, head, replaysBody):
            redirects += 1
            guard redirects <= maximum else {
                redirect = .limitReached(head)
                return .none
            }
            let byTransport = !replaysBody && redirectsByTask < (followedPerTask ?? .max)
            if byTransport {
                redirectsByTask += 1
            } else {
                redirect = .followAfterTask(next)
            }
            return .redirect(next, byTransport: byTransport)
        }
    }

    /// Where a response head of the current task goes, by what its redirect came to.
    var headRoute: HeadRoute {
        guard case .running = phase else { return .body }
        switch redirect {
        case .none, .refused: return .body
        case .followAfterTask: return .skip
        case .limitReached: return .redirectLimitReached
        }
    }

    /// Whether the current task's body is dropped unread (a redirect Courier follows itself).
    var skipsBody: Bool {
        guard case .running = phase, case .followAfterTask = redirect else { return false }
        return true
    }

    /// The transport task is over (its last event has arrived), `failed` or not: a redirect
    /// Courier follows is followed, a refused one fails the attempt, anything else is judged.
    mutating func taskCompleted(failed: Bool) -> Action {
        guard case .running = phase else { return .none }
        phase = .processing
        let redirect = self.redirect
        self.redirect = .none
        switch redirect {
        case let .refused(error):
            return end(.failure(error, response: error.response))
        case let .followAfterTask(next) where !failed:
            return .followRedirect(next)
        case let .limitReached(head):
            return .judge(redirectLimitHit: head)
        case .none, .followAfterTask:
            return .judge(redirectLimitHit: nil)
        }
    }

    /// The same attempt goes on with a new task: a redirect Courier follows itself (`request`
    /// is where it leads), or a download starting over (`request` is `nil`: the same one).
    mutating func restart(with next: WireRequest?) -> Action {
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
    /// the deadline (``NetworkError/timedOut(_:)``), or a body that cannot go on (too large, disk
    /// full). A running task is cancelled.
    mutating func abort(_ error: NetworkError) -> Action {
        end(.failure(error, response: nil))
    }

    // MARK: - Views

    /// The task in flight, in ``Phase/running(_:)``; `nil` in every other phase.
    var runningTask: Task? {
        if case let .running(task) = phase { return task }
        return nil
    }

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
        redirect = .none
        failureBeingRetried = nil
        return .end(ending)
    }
}
