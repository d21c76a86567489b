import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The life of one scheduled request, shared by every kind of transfer: preparing each attempt,
/// waiting for a slot, running, retrying, and ending exactly once.
///
/// **Exactly once.** Every way a transfer can end (the response is processed, the caller cancels,
/// the deadline passes, an attempt fails for good) goes through ``claimEnd(as:)``, which lets only
/// the first one through. The loser's result is dropped, so the completion runs exactly once.
///
/// **Cancel never blocks.** Ending a running transfer early cancels its transport task on a
/// background queue, never on the caller's thread and never under a lock: on Linux
/// `URLSessionTask.cancel()` blocks for milliseconds to seconds and keeps delivering data while it
/// does. The task is detached from the registry first, so those late bytes are dropped unread.
///
/// **Attempts.** Each attempt is adapted by the interceptors, waits for a slot, runs, and on
/// failure asks the retry policy and interceptors whether to go again. Between attempts (backoff,
/// adapting) the transfer holds no slot: a token fetch or a `Retry-After` wait never blocks other
/// requests, and a cancel then ends it at once. The deadline covers all attempts.
///
/// Subclasses create the transport task, consume its delegate events (on the session's delegate
/// queue, one at a time) and deliver the typed result.
class Transfer: @unchecked Sendable {
    enum Phase {
        /// Being adapted, or waiting for a slot.
        case queued
        /// Has a slot; the transport task is being created.
        case starting
        /// The transport task is running (or has just completed and is being processed).
        case running(any TransportTask)
        /// Between attempts: backing off or being adapted again. Holds no slot.
        case waiting
        /// Ended with a result (success or failure).
        case finished
        /// Ended by a cancel.
        case cancelled
    }

    /// How a transfer ends, as put to ``claimEnd(as:)``.
    enum Ending {
        /// The transport task is over (with a response or an error): nothing left to cancel.
        case taskCompleted
        /// Ended early (cancel, deadline): the transport task, if any, is cancelled.
        case aborted(NetworkError)
    }

    /// How long a cancelled task may keep its slot while URLSession has not confirmed its end.
    static let drainFallback: TimeInterval = 10

    let core: NetworkCore
    let id: UInt64
    let timeout: TimeInterval
    let retryPolicy: RetryPolicy
    /// Serial queue for this transfer's handlers when it reports progress; `nil` otherwise.
    let handlerQueue: DispatchQueue?
    let target: CallbackTarget
    /// The request as built and completed with the Network's defaults, before interceptors.
    let baseRequest: Result<URLRequest, NetworkError>

    private struct State {
        var phase: Phase = .queued
        var holdsSlot = false
        var deadline: DispatchSourceTimer?
        var backoff: DispatchSourceTimer?
        /// Attempts started so far.
        var attempts = 0
        /// The current attempt's request, after the interceptors.
        var attemptRequest: URLRequest?
        /// Redirects followed by the current attempt.
        var redirects = 0
        /// Set when the current attempt hit the redirect limit: the response that was not followed.
        var redirectLimitHit: HTTPResponse?
        /// A `307`/`308` redirect of a request with a body, which Courier follows itself.
        var pendingRedirect: URLRequest?
    }

    private let state = Locked(State())

    init<R: NetworkRequest>(core: NetworkCore, request: R, target: CallbackTarget, reportsProgress: Bool) {
        self.core = core
        self.id = core.nextTransferID()
        self.timeout = request.timeout
        self.retryPolicy = request.retryPolicy ?? core.retryPolicy.withLock { $0 }
        self.target = target
        self.handlerQueue = reportsProgress ? target.makeSerialQueue() : nil
        self.baseRequest = core.prepare(request)
    }

    // MARK: - Subclass hooks

    /// Whether preparing a task is heavy enough (e.g. writing a file) to keep it off the
    /// scheduling thread. Default: no.
    var startsOffThread: Bool { false }

    /// Whether the task uploads its body from a file (so `URLRequest.httpBody` is empty even
    /// though there is a body to repeat on a 307/308). Default: no.
    var uploadsBodyFromFile: Bool { false }

    /// Creates the transport task (not yet resumed) for one attempt: on the thread that started
    /// the attempt, or on the start queue.
    func makeSessionTask(in transport: any Transport, for request: URLRequest) throws -> any TransportTask {
        fatalError("subclass must override")
    }

    /// Delivers a failure to the caller (through the request's `convertError`, with the response
    /// the failed attempt got, if any); called at most once, after a successful claim.
    func deliverFailure(_ error: NetworkError, response: HTTPResponse?) {
        fatalError("subclass must override")
    }

    /// Delegate events, on the session's delegate queue.
    func didReceive(response: URLResponse) {}
    func didReceive(data: Data) {}
    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    func didComplete(error: (any Error)?) {}
    func didRejectAuthenticationChallenge() {}

    /// A redirect of the current attempt: the request to follow it with, or `nil` to stop and
    /// take the redirect response as the answer. Called on the delegate queue.
    func redirect(_ response: HTTPURLResponse, to proposed: URLRequest, from previous: URLRequest?) -> URLRequest? {
        let limit = core.maximumRedirects.withLock { $0 }
        let (follow, original) = state.withLock { state -> (Bool, URLRequest?) in
            state.redirects += 1
            guard state.redirects <= limit else {
                state.redirectLimitHit = HTTPResponse(response, body: Data())
                return (false, state.attemptRequest)
            }
            return (true, state.attemptRequest)
        }
        guard follow else { return nil }
        var next = RedirectPolicy.request(following: response, proposed: proposed, previous: previous ?? original, original: original)
        if let cookies = core.sessionCookies { next = cookies.applying(to: next) }
        let context = self.context
        let observers = core.observers
        observers.forEach { $0.didRedirect(HTTPResponse(response, body: Data()), to: next, context: context) }
        if RedirectPolicy.mustReplayBody(response, previous ?? original, bodyFromFile: uploadsBodyFromFile) {
            // FoundationNetworking would re-send this without its body: stop its redirect here
            // (it then completes the task) and follow with a new task; see `followPendingRedirect`.
            // That task's start tells the observers `willSend`.
            state.withLock { $0.pendingRedirect = next }
            return nil
        }
        observers.forEach { $0.willSend(next, context: context) }
        return next
    }

    /// If the attempt stopped at a redirect Courier follows itself, starts the task that follows
    /// it and returns `true`: the subclass must then ignore this task's completion. Called on the
    /// delegate queue from `didComplete`.
    func followPendingRedirect() -> Bool {
        let next = state.withLock { state -> URLRequest? in
            defer { state.pendingRedirect = nil }
            if let next = state.pendingRedirect { state.attemptRequest = next }
            return state.pendingRedirect
        }
        guard next != nil else { return false }
        restartSessionTask()
        return true
    }

    /// The redirect response the current attempt refused to follow, if it hit the limit.
    var redirectLimitResponse: HTTPResponse? { state.withLock { $0.redirectLimitHit } }

    /// Called once, right after the transfer has ended in any way (before its completion runs):
    /// release resources such as temporary files. Runs on the thread that ended it.
    func didEnd() {}

    // MARK: - State

    /// Public view of the phase.
    var publicState: NetworkTask.State {
        state.withLock { state in
            switch state.phase {
            case .queued: return state.attempts == 0 ? .queued : .running
            case .starting, .running, .waiting: return .running
            case .finished: return .finished
            case .cancelled: return .cancelled
            }
        }
    }

    var wasCancelled: Bool {
        state.withLock { if case .cancelled = $0.phase { return true } else { return false } }
    }

    /// Attempts started so far.
    var attemptCount: Int { state.withLock { $0.attempts } }

    /// What observers and interceptors learn about the current attempt.
    var context: RequestContext {
        let (attempts, request) = state.withLock { ($0.attempts, $0.attemptRequest) }
        let url = request?.url ?? (try? baseRequest.get())?.url
        let method = (request?.httpMethod ?? (try? baseRequest.get())?.httpMethod).map(HTTPMethod.init(rawValue:))
        return RequestContext(id: id, attempt: max(1, attempts), method: method ?? .get, url: url)
    }

    // MARK: - Attempts

    /// Prepares the first attempt and queues it; fails at once when the request could not even
    /// be built (e.g. a malformed URL), without waiting for a slot.
    func submit() {
        switch baseRequest {
        case let .failure(error): fail(error)
        case let .success(request): adaptAndEnqueue(request)
        }
    }

    /// Runs the interceptors' `adapt` on `request`, then queues the attempt for a slot.
    private func adaptAndEnqueue(_ request: URLRequest) {
        let current = context
        let upcoming = RequestContext(id: id, attempt: attemptCount + 1, method: current.method, url: request.url)
        core.adapt(request, context: upcoming) { [self] result in
            switch result {
            case let .failure(error):
                fail(error)
            case let .success(adapted):
                let queued = state.withLock { state -> Bool in
                    switch state.phase {
                    case .queued, .waiting:
                        state.phase = .queued
                        state.attemptRequest = adapted
                        return true
                    default:
                        return false  // ended while adapting
                    }
                }
                if queued { core.requestQueue.enqueue(self) }
            }
        }
    }

    /// Starts an attempt in the slot the queue just gave it. Returns `false` (and the slot goes
    /// back) when the transfer ended while it waited. Never runs on the delegate queue.
    func start() -> Bool {
        let claimedSlot = state.withLock { state -> Bool in
            guard case .queued = state.phase else { return false }
            state.phase = .starting
            state.holdsSlot = true
            state.attempts += 1
            state.redirects = 0
            state.redirectLimitHit = nil
            state.pendingRedirect = nil
            return true
        }
        guard claimedSlot else { return false }
        launchSessionTask()
        return true
    }

    /// Replaces the transport task, which has just completed, with a new one for the same
    /// attempt (a download whose resume was refused starts over). Called on the delegate queue.
    func restartSessionTask() {
        core.requestQueue.startQueue.async { [self] in
            let stillRunning = state.withLock { state -> Bool in
                guard case .running = state.phase else { return false }
                state.phase = .starting
                return true
            }
            if stillRunning { launchSessionTask() }
        }
    }

    /// Creates, registers and resumes the transport task, in phase `.starting` (never on the
    /// delegate queue).
    private func launchSessionTask() {
        guard var request = state.withLock({ $0.attemptRequest }) else { return }
        if let cookies = core.sessionCookies { request = cookies.applying(to: request) }
        let task: any TransportTask
        do {
            task = try makeSessionTask(in: core.transport, for: request)
        } catch {
            fail(error as? NetworkError ?? NetworkError.from(error))
            return
        }
        core.registry.attach(task, to: self)
        let stillWanted = state.withLock { state -> Bool in
            guard case .starting = state.phase else { return false }
            state.phase = .running(task)
            if state.deadline == nil { state.deadline = makeTimer(after: timeout) { $0.end(with: .timedOut) } }
            return true
        }
        if stillWanted {
            core.observers.forEach { $0.willSend(request, context: context) }
            task.resume()
        } else {
            // Ended while the task was being made: it was never resumed, drop it quietly.
            core.registry.detach(task)
            core.cancelInBackground(task)
        }
    }

    /// An attempt failed with `error` (its task is over). Asks the interceptors and the retry
    /// policy whether to go again: if so, gives back the slot, waits, adapts and queues the next
    /// attempt; if not, calls `giveUp`, which ends the transfer with the error.
    func retryOrGiveUp(after error: NetworkError, response: HTTPResponse?, giveUp: @escaping @Sendable () -> Void) {
        let attemptRequest = state.withLock { $0.attemptRequest }
        guard let attemptRequest else { return giveUp() }
        let context = self.context
        core.retryDelay(for: attemptRequest, error: error, response: response, context: context, policy: retryPolicy) { [self] delay in
            guard let delay else { return giveUp() }
            let waiting = state.withLock { state -> (task: (any TransportTask)?, slot: Bool)? in
                guard case let .running(task) = state.phase else { return nil }
                state.phase = .waiting
                defer { state.holdsSlot = false }
                return (task, state.holdsSlot)
            }
            // Ended meanwhile (a cancel or the deadline won): nothing more to do.
            guard let waiting else { return }
            if let task = waiting.task { core.registry.detach(task) }
            if waiting.slot { core.requestQueue.release() }
            core.observers.forEach { $0.didRetry(after: error, delay: delay, context: context) }
            let timer = makeTimer(after: delay) { transfer in
                let next = transfer.baseRequest
                if case let .success(request) = next { transfer.adaptAndEnqueue(request) }
            }
            let armed = state.withLock { state -> Bool in
                guard case .waiting = state.phase else { return false }
                state.backoff = timer
                return true
            }
            if !armed { timer?.cancel() }
        }
    }

    // MARK: - Ending

    /// Cancels the transfer: the completion receives ``NetworkError/cancelled`` at once.
    func cancel() {
        end(with: .cancelled)
    }

    /// Ends the transfer early with `error` (cancel, deadline): cancels the transport task.
    /// Does nothing if it has already ended.
    func end(with error: NetworkError) {
        guard claimEnd(as: .aborted(error)) else { return }
        notifyFailure(error)
        deliverFailure(error, response: nil)
    }

    /// Ends the transfer with `error` once its transport task is over (or was never made);
    /// `response` is what the last attempt got, if anything.
    func fail(_ error: NetworkError, response: HTTPResponse? = nil) {
        guard claimEnd(as: .taskCompleted) else { return }
        notifyFailure(error)
        deliverFailure(error, response: response)
    }

    /// Tells the observers that the transfer failed for good.
    func notifyFailure(_ error: NetworkError) {
        let context = self.context
        core.observers.forEach { $0.didFail(error, context: context) }
    }

    /// The single gate every ending passes through: returns `true` for the first caller only.
    /// The winner releases the slot, stops the timers and, for an early end, cancels the
    /// transport task in the background.
    func claimEnd(as ending: Ending) -> Bool {
        let claim = state.withLock { state -> (task: (any TransportTask)?, slot: Bool, timers: [DispatchSourceTimer])? in
            let task: (any TransportTask)?
            switch state.phase {
            case .finished, .cancelled: return nil
            case let .running(running): task = running
            case .queued, .starting, .waiting: task = nil
            }
            if case .aborted(.cancelled) = ending { state.phase = .cancelled } else { state.phase = .finished }
            let claim = (task: task, slot: state.holdsSlot, timers: [state.deadline, state.backoff].compactMap { $0 })
            state.holdsSlot = false
            state.deadline = nil
            state.backoff = nil
            return claim
        }
        guard let claim else { return false }
        claim.timers.forEach { $0.cancel() }
        var releaseSlot = claim.slot
        if let task = claim.task {
            if case .aborted = ending {
                if releaseSlot {
                    // The connection stays busy until URLSession confirms the end: the slot goes
                    // back then (see TransferRegistry), not now.
                    let queue = core.requestQueue
                    core.registry.drain(task, fallback: Self.drainFallback) { queue.release() }
                    releaseSlot = false
                } else {
                    core.registry.detach(task)
                }
                core.cancelInBackground(task)
            } else {
                core.registry.detach(task)
            }
        }
        core.transferDidEnd(self, releasingSlot: releaseSlot)
        didEnd()
        return true
    }

    /// Runs `body` where this transfer's handlers run: its serial queue when it reports progress
    /// (so the completion follows the last progress event), else the callback target.
    func onHandlerQueue(_ body: @escaping @Sendable () -> Void) {
        if let handlerQueue {
            handlerQueue.async(execute: body)
        } else if case let .queue(queue) = target {
            queue.async(execute: body)
        } else {
            body()
        }
    }

    /// A one-shot timer on the timer queue; `nil` for an infinite (or invalid) interval.
    private func makeTimer(after interval: TimeInterval, _ fire: @escaping @Sendable (Transfer) -> Void) -> DispatchSourceTimer? {
        guard interval.isFinite, interval >= 0 else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: core.timerQueue)
        timer.setEventHandler { [weak self] in
            if let self { fire(self) }
        }
        timer.schedule(deadline: .now() + interval)
        timer.resume()
        return timer
    }
}
