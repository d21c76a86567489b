import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One scheduled request, from `schedule` to its one completion: the owner of a
/// ``TransferLifecycle``, which decides, and of a ``TransferBody``, which reads the response.
///
/// Every event goes the same way: under the transfer's one lock the lifecycle takes the event and
/// returns an action; after the lock is released the action is carried out. So no user code
/// (interceptors, observers, `validate`, `output`, `convertError`, completions, progress) ever
/// runs under the lock, and the order of events alone decides the outcome.
///
/// **Cancel never blocks.** Ending a running transfer early cancels its transport task on a
/// background queue, never on the caller's thread and never under a lock: on Linux
/// `URLSessionTask.cancel()` blocks for milliseconds to seconds and keeps delivering data while it
/// does. The task is detached from the registry first, so those late bytes are dropped unread.
///
/// **Attempts.** Each attempt is adapted by the interceptors, waits for a slot, runs, and on
/// failure asks the retry policy and interceptors whether to go again. Between attempts the
/// transfer holds no slot: a token fetch or a `Retry-After` wait never blocks other requests, and
/// a cancel then ends it at once. The deadline covers all attempts.
///
/// **One word per ending.** A transport task *completes* (``didComplete(_:metrics:)``; the curl
/// engine's `complete`, after libcurl says `curlDone`); the attempt it carried is *judged*
/// (``judge(_:)``: accepted, retried, failed or rejected); the transfer *ends* once
/// (``end(with:)`` from outside, the lifecycle's ``TransferLifecycle/Action/end(_:)``, then
/// ``NetworkCore/transferEnded(_:releasingSlot:)``), and its ending is *delivered* to the caller
/// (``deliver(_:committing:)``, through ``Delivery/deliver(_:)``). What it held is *released*
/// (the slot, the body); the lifecycle's `abort` is the event of an early end (cancel, deadline).
final class Transfer: ScheduledTransfer {
    typealias Lifecycle = TransferLifecycle<any TransportTask>

    /// How long a cancelled task may keep its slot while the transport has not confirmed its end.
    static var drainFallback: TimeInterval { 10 }

    private let core: NetworkCore
    private let id: UInt64
    private let timeout: TimeInterval
    private let retryPolicy: RetryPolicy
    /// The network's settings when the transfer was scheduled (see ``TransferSettings``).
    private let settings: TransferSettings
    /// The request's own rate limit, handed to each task (see ``NetworkRequest/rateLimit``).
    private let rateLimit: RateLimit?
    /// The request's own idle and connect timeouts (``NetworkRequest/transferOptions``), over the
    /// network's when each task is made (``RequestTimeout/options(request:network:rateLimit:urlRequest:)``).
    private let transferOptions: TransferOptions
    /// The network's cache, where this transfer's body may use it (``TransferBody/usesCache``).
    private let cache: HTTPCache?
    /// The request as built and completed with the Network's defaults, before interceptors.
    private let baseRequest: Result<WireRequest, NetworkError>
    /// The body, which alone knows the output's type, and keeps the one completion: so this class
    /// is not generic (see ``TransferBody/completion``).
    private let body: any TransferBody
    private let delivery: Delivery
    /// Where the request's own response code runs, if the network says (``NetworkCore/requestCodeQueue``).
    /// Not for the blocking and async bridges: a blocking call made on that very queue would
    /// otherwise wait for itself.
    private let requestCodeQueue: DispatchQueue?

    private typealias State = TransferState

    private let state = Locked(State())

    /// - Parameter baseRequest: `request` built and completed with the Network's defaults
    ///   (``NetworkCore/prepare(_:)``), or why it could not be.
    init(core: NetworkCore, terms: RequestTerms, baseRequest: Result<WireRequest, NetworkError>,
         body: any TransferBody, delivery: Delivery) {
        self.core = core
        self.id = core.nextTransferID()
        self.timeout = terms.timeout
        let options = terms.transferOptions
        let snapshot = core.settingsSnapshot()
        let settings = options.overridesSettings ? snapshot.overridden(by: options) : snapshot
        self.settings = settings
        self.retryPolicy = terms.retryPolicy ?? settings.retryPolicy
        self.rateLimit = terms.rateLimit
        self.transferOptions = options
        self.cache = body.usesCache ? settings.cache : nil
        self.baseRequest = baseRequest
        self.body = body
        self.delivery = delivery
        self.requestCodeQueue = delivery.isImmediate ? nil : core.requestCodeQueue
        delivery.attach { TransferCancellation { [weak self] in self?.cancel() } }
    }

    var startsOffThread: Bool { body.startsOffThread }

    var publicState: NetworkTask.State { state.withLock { $0.lifecycle.publicState } }

    var attemptCount: Int { state.withLock { $0.lifecycle.attempts } }

    /// What observers and interceptors learn about the current attempt.
    private var context: RequestContext {
        let (attempts, request) = state.withLock { ($0.lifecycle.attempts, $0.lifecycle.request) }
        return context(attempt: max(1, attempts), url: request?.url)
    }

    private func context(attempt: Int, url: URL?) -> RequestContext {
        let base = try? baseRequest.get()
        let method = (state.withLock { $0.lifecycle.request?.method } ?? base?.method).map(HTTPMethod.init(rawValue:))
        return RequestContext(id: id, attempt: attempt, method: method ?? .get, url: url ?? base?.url)
    }

    // MARK: - Events in

    func submit() {
        switch baseRequest {
        case let .failure(error): handle { $0.abort(error) }   // no usable request: fail at once, no slot
        case .success: handle { $0.submit() }
        }
    }

    func start() -> Bool {
        let action = event { state in
            let action = state.lifecycle.slotGranted()
            if case .makeTask = action {
                state.clock = AttemptClock()
                // The deadline runs from the first attempt's start and covers every attempt.
                if !state.deadlineFixed {
                    state.deadlineFixed = true
                    state.deadlineAt = RequestTimeout.deadline(after: timeout, from: DispatchTime.now().uptimeNanoseconds)
                }
            }
            return action
        }
        if case .releaseSlot = action { return false }
        perform(action)
        return true
    }

    /// The request's own deadline (``NetworkRequest/timeout``) has passed.
    private var deadlinePassed: NetworkError {
        .timedOut(TimeoutExceeded(kind: .requestDeadline, seconds: timeout))
    }

    func end(with error: NetworkError) {
        guard case let .timedOut(timeout) = error, timeout.url == nil else {
            return handle { $0.abort(error) }
        }
        // A deadline says where the request was when it passed.
        let url = state.withLock { $0.lifecycle.request?.url } ?? (try? baseRequest.get())?.url
        handle { $0.abort(.timedOut(timeout.locating(url))) }
    }

    /// The one place every response head is first seen: a head that breaks HTTP's framing rules
    /// (see ``ResponseHeadCheck``) ends the transfer with ``NetworkError/invalidResponse(_:)``
    /// before any of its body is used.
    func didReceive(head received: HTTPResponse) {
        // A cached answer's `Set-Cookie` was taken when it first came: again, it could bring back
        // a cookie the server has changed or deleted since.
        if let cookies = core.sessionCookies, received.cacheStatus == .network, let url = received.url {
            cookies.store(from: received.headers, for: url)
        }
        if let problem = ResponseHeadCheck.problem(in: received) {
            end(with: .invalidResponse(problem))
            return
        }
        if let networkCache = settings.cache { invalidateStored(in: networkCache, by: received) }
        var head = received
        var storedBody: Data?
        if cache != nil, let (replacement, status) = cacheReplacement(for: received) {
            head = replacement.response(age: CacheFreshness.age(of: replacement, now: Date()), status: status)
            storedBody = replacement.body
        }
        let measures = !core.transport.measuresTransfers
        let now = DispatchTime.now()
        let route = state.withLock { state in
            if measures { state.clock.headArrived = now }
            state.stall.heard(at: now.uptimeNanoseconds)
            return state.lifecycle.headRoute
        }
        switch route {
        case .body:
            break
        case .skip:
            // The 307 or 308 Courier follows itself once this task is over (see redirect): its
            // head and body are nobody's answer, and a stream or a download must not see them.
            return
        case .redirectLimitReached:
            // The redirect left unfollowed at the limit (both engines ask `redirect` before
            // handing its head on). It is no answer: its body is nobody's output (a stream's
            // consumer, a download's file), as curl -L --max-redirs writes none of it. The
            // observers still see it, as the response the transfer ended on.
            notifyObservers { $0.didReceive(head, context: $1) }
            end(with: .tooManyRedirects(head))
            return
        }
        let decoding = DecompressionGuard(head: head, limit: settings.decompressionLimit)
        state.withLock { $0.decoding = decoding }
        apply(body.didReceive(head: head))
        if let storedBody {
            // The cache's body in place of the server's (a 304 has none; a 5xx's is dropped).
            if !storedBody.isEmpty { didReceive(data: storedBody) }
            state.withLock { $0.cacheAnswered = true }
        }
    }

    @discardableResult
    func didReceive(data: Data) -> ReceiveDecision {
        receive(count: data.count, encodedBytes: nil) { body.didReceive(data: data) }
    }

    func didReceive(bytes: UnsafeRawBufferPointer, encodedBytes: Int64?) -> ReceiveDecision {
        receive(count: bytes.count, encodedBytes: encodedBytes) { body.didReceive(bytes: bytes) }
    }

    /// Hands a chunk of `count` bytes to the body, unless it takes a decoded body past the
    /// decompression limit: the transfer then ends with ``NetworkError/limitExceeded(_:)`` (and
    /// the chunk is dropped). A chunk the body refuses (flow control) is not counted: it comes back.
    private func receive(count: Int, encodedBytes: Int64?, _ deliver: () -> BodyStep) -> ReceiveDecision {
        let now = DispatchTime.now().uptimeNanoseconds
        let holds = body.mayHoldChunks
        let (skipped, guarded, exceeded) = state.withLock { state -> (Bool, Bool, NetworkError?) in
            state.stall.heard(at: now)
            // A body that may keep this chunk waiting (a stream with no room) is holding it
            // until it answers: that wait is not the server's stall.
            if holds { state.stall.isHolding = true }
            // The 307 or 308 Courier follows itself once this task is over (see redirect): its
            // body is nobody's, and is dropped unread.
            if state.lifecycle.skipsBody || state.cacheAnswered { return (true, false, nil) }
            guard let decoding = state.decoding else { return (false, false, nil) }
            if let error = decoding.check(count, encoded: encodedBytes) { return (false, true, error) }
            state.decoding?.taken(count)
            return (false, true, nil)
        }
        if skipped { return .accepted }
        if let exceeded {
            end(with: exceeded)
            return .accepted
        }
        let step = deliver()
        if holds {
            // Refused, the chunk stays held until the task offers it again.
            let now = DispatchTime.now().uptimeNanoseconds
            state.withLock { state in
                state.stall.heard(at: now)
                state.stall.isHolding = step.refused
            }
        }
        apply(step)
        guard step.refused else { return .accepted }
        if guarded { state.withLock { $0.decoding?.returned(count) } }
        return .refused
    }

    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.stall.heard(at: now) }
        apply(body.didSend(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend))
    }

    func didRejectAuthenticationChallenge() {
        body.didRejectAuthenticationChallenge()
    }

    func didComplete(_ outcome: TransportOutcome, metrics reported: TransferMetrics?) {
        // The deadline timer fires a little late (its leeway, a busy queue); an answer that came
        // after the deadline all the same is not one: the transfer ends as the timer would have
        // ended it (the ending then finds the task over, and its slot goes back at once).
        let (clock, due) = state.withLock { ($0.clock, $0.deadlineAt) }
        if let due, DispatchTime.now().uptimeNanoseconds >= due { end(with: deadlinePassed) }
        var error = outcome.error
        let failed = error != nil
        let redirectLimitHit: HTTPResponse?
        let action = event { $0.lifecycle.taskCompleted(failed: failed) }
        switch action {
        case let .judge(limitHit):
            redirectLimitHit = limitHit
            if error != nil, cache != nil, let stale = state.withLock({ $0.cacheUse?.staleIfError.take() }) {
                // The server could not be reached: the stored response that allows it, stale.
                body.reset()
                apply(body.didReceive(head: stale.response(age: CacheFreshness.age(of: stale, now: Date()), status: .staleAfterError)))
                if !stale.body.isEmpty { _ = body.didReceive(data: stale.body) }
                error = nil
            }
        case .none:
            // Ended already (a cancel, the deadline): the body still hears of its task's end.
            redirectLimitHit = nil
        default:
            // A redirect Courier follows itself, or one to a refused scheme: what the body
            // received of this task is nobody's answer.
            body.reset()
            return perform(action)
        }
        // The transport's metrics, or what the transfer timed itself where it has none.
        let metrics = reported ?? clock.started.map {
            SessionMetrics.measured(from: $0, headArrived: clock.headArrived, end: .now(), failed: error != nil)
        }
        if let metrics {
            notifyObservers { $0.didFinishCollecting(metrics, context: $1) }
            error = error?.carrying(metrics: metrics)
        }
        let completion = body.didComplete(error: error, metrics: metrics, redirectLimitHit: redirectLimitHit)
        if error == nil, redirectLimitHit == nil, let observed = completion.observed,
           let use = state.withLock({ $0.cacheUse }) {
            use.store(observed)
        }
        if let progress = completion.progress { delivery.report(progress, force: true) }
        if let observed = completion.observed {
            notifyObservers { $0.didReceive(observed, context: $1) }
        }
        judge(completion.outcome)
    }

    func redirect(_ head: HTTPResponse, to proposed: WireRequest, from previous: WireRequest?) -> WireRequest? {
        // Before the next request is made, so that it carries what this response set.
        if let cookies = core.sessionCookies, let url = head.url { cookies.store(from: head.headers, for: url) }
        // Not following (Network.followsRedirects): the redirect is the response, on both engines.
        guard settings.followsRedirects else { return nil }
        if let scheme = RedirectPolicy.refusedScheme(of: head, proposed: proposed) {
            // Not followed, and the task left to end by itself: cancelling it here, inside
            // URLSession's redirect callback, raced FoundationNetworking's own bookkeeping
            // ("Received callback for HTTP redirection, but we're not waiting for it").
            state.withLock { _ = $0.lifecycle.redirectMet(.refused(.unsupportedRedirect(scheme, head)), maximum: 0) }
            return nil
        }
        let now = DispatchTime.now().uptimeNanoseconds
        let original = state.withLock { state in
            state.stall.heard(at: now)
            return state.lifecycle.request
        }
        var next = RedirectPolicy.request(following: head, proposed: proposed, previous: previous ?? original, original: original,
                                          keepsCredentials: core.transport.keepsCredentialsAcrossOrigins)
        if let cookies = core.sessionCookies { next = cookies.applying(to: next) }
        // FoundationNetworking would re-send a 307/308 without its body, and fails a task's 21st
        // redirect before asking: Courier then stops the redirect here (the task completes) and
        // follows it with a new task (see didComplete), whose resume tells the observers `willSend`.
        let replaysBody = RedirectPolicy.mustReplayBody(head, previous ?? original, bodyFromFile: body.uploadsFromFile)
        let limit = settings.maximumRedirects
        let perTask = core.transport.redirectsFollowedPerTask
        let action = state.withLock {
            $0.lifecycle.redirectMet(.follow(next, head: head, replaysBody: replaysBody), maximum: limit, followedPerTask: perTask)
        }
        guard case let .redirect(next, byTransport) = action else { return nil }
        let context = self.context
        let observers = settings.observers
        if !observers.isEmpty {
            let sent = next.urlRequest
            observers.forEach { $0.didRedirect(head, to: sent, context: context) }
            if byTransport { observers.forEach { $0.willSend(sent, context: context) } }
        }
        guard byTransport else { return nil }
        return next
    }

    // MARK: - Judging an attempt

    /// Acts on what the body made of a completed task: accepted, failed, rejected, or to be
    /// judged by the request's own code (`validate`, `output`), inline or on another queue.
    private func judge(_ outcome: AttemptOutcome) {
        switch outcome {
        case let .accepted(commit):
            let action = event { $0.lifecycle.succeeded() }
            if case let .end(ending) = action {
                deliver(ending, committing: commit)
            }
        case let .judge(size, verdict):
            if let requestCodeQueue {
                requestCodeQueue.async { [self] in judge(verdict()) }
            } else if size <= AttemptOutcome.inlineJudgingLimit {
                judge(verdict())
            } else {
                core.workQueue.async { [self] in judge(verdict()) }
            }
        case let .failed(error, response, retryable):
            handle { retryable ? $0.attemptFailed(error, response: response) : $0.failedForGood(error, response: response) }
        case let .rejected(error):
            handle { $0.rejected(error) }
        case .startOver:
            restart(with: nil)
        }
    }

    /// Goes on with a new task for the same attempt, made on the start queue (never on the
    /// delegate queue, where this is called: making a task may wait for URLSession).
    private func restart(with next: WireRequest?) {
        core.requestQueue.startQueue.async { [self] in handle { $0.restart(with: next) } }
    }

    private func apply(_ step: BodyStep) {
        if let progress = step.progress { delivery.report(progress, force: step.forceProgress) }
        if let observed = step.observed {
            notifyObservers { $0.didReceive(observed, context: $1) }
        }
        step.afterObservers?()
        if let error = step.abort { end(with: error) }
    }

    // MARK: - Actions out

    /// Feeds one event to the lifecycle under the lock and returns its action. An ending takes
    /// the timers with it, in the same critical section, so no timer can fire into a new phase.
    private func event(_ body: (inout State) -> Lifecycle.Action) -> Lifecycle.Action {
        // The two timers as a pair, not an array: this runs for every event, and an array (and
        // its compacted copy) were two allocations a request.
        let (action, deadline, backoff, stall) = state.withLock { state -> (Lifecycle.Action, TimerQueue.Token?, TimerQueue.Token?, TimerQueue.Token?) in
            let action = body(&state)
            guard case .end = action else { return (action, nil, nil, nil) }
            defer { state.deadline = nil; state.backoff = nil; state.stallCheck = nil }
            return (action, state.deadline, state.backoff, state.stallCheck)
        }
        // Cancelled outside this lock (the timer queue has its own); one that fires meanwhile
        // finds the lifecycle ended and does nothing.
        if let deadline { core.timers.cancel(deadline) }
        if let backoff { core.timers.cancel(backoff) }
        if let stall { core.timers.cancel(stall) }
        return action
    }

    private func handle(_ body: (inout Lifecycle) -> Lifecycle.Action) {
        perform(event { body(&$0.lifecycle) })
    }

    /// Carries out an action, with no lock held.
    private func perform(_ action: Lifecycle.Action) {
        switch action {
        case .none:
            break
        case let .adapt(attempt):
            guard case let .success(request) = baseRequest else { return }
            core.adapt(request, interceptors: settings.interceptors, context: context(attempt: attempt, url: request.url)) { [self] result in
                handle { $0.adapted(result) }
            }
        case .enqueue:
            core.requestQueue.enqueue(self)
        case .releaseSlot:
            core.requestQueue.release()
        case let .makeTask(request):
            makeTask(for: request)
        case let .resume(task, _):
            if !settings.observers.isEmpty, let request = state.withLock({ $0.sending }) {
                let sent = request.urlRequest
                notifyObservers { $0.willSend(sent, context: $1) }
            }
            watchStalls(of: task)
            task.resume()
        case let .discard(task):
            core.registry.detach(task)
            core.cancel(task)
        case let .askRetry(error, response, request, attempt):
            let context = context(attempt: attempt, url: request.url)
            core.retryDelay(for: request, error: error, response: response, context: context, policy: retryPolicy,
                           interceptors: settings.interceptors) { [self] delay in
                handle { $0.retryDecided(delay: delay) }
            }
        case let .backOff(delay, error, attempt):
            core.requestQueue.release()
            let context = self.context(attempt: attempt, url: state.withLock { $0.lifecycle.request?.url })
            settings.observers.forEach { $0.didRetry(after: error, delay: delay, context: context) }
            let timer = makeBackoffTimer(after: delay)
            let armed = state.withLock { state -> Bool in
                guard case .backingOff = state.lifecycle.phase else { return false }
                state.backoff = timer
                return true
            }
            if !armed, let timer { core.timers.cancel(timer) }
        case let .followRedirect(next):
            restart(with: next)
        case .redirect, .judge:
            // Answers to `redirectMet` and `taskCompleted`, acted on where those events are fed.
            break
        case let .end(ending):
            deliver(ending, committing: nil)
        }
    }

    /// Makes, registers and (through the lifecycle) resumes the transport task for `request`,
    /// with the cookies the session holds for it now (see ``SessionCookies``).
    private func makeTask(for request: WireRequest) {
        // A deadline already past sends nothing: not even a connection is opened. (The timer
        // alone would race the transport, which may answer first on a fast network.)
        if deadlineHasPassed {
            end(with: deadlinePassed)
            return
        }
        var request = request
        if let cookies = core.sessionCookies { request = cookies.applying(to: request) }
        if let problem = MethodBodyCheck.problem(in: request, uploadsFromFile: body.uploadsFromFile,
                                                 transportSendsGETBodies: core.transport.sendsGETBodies) {
            handle { $0.taskCreationFailed(problem) }
            return
        }
        var cacheUse: CacheUse?
        var cacheAnswer: CachedResponseTask?
        let method = request.method
        if let cache, method == "GET" || method == "HEAD" {
            switch plan(request, with: cache, headOnly: method == "HEAD") {
            case let .network(sent, use):
                request = sent
                cacheUse = use
            case let .answer(answer):
                cacheAnswer = answer
            case let .fail(error):
                handle { $0.taskCreationFailed(error) }
                return
            }
        }
        var options = RequestTimeout.options(request: transferOptions, network: core.timeouts, rateLimit: rateLimit, wireRequest: request)
        options.decompresses = settings.decompressesResponses
        options.httpVersion = transferOptions.httpVersion
        let task: any TransportTask
        do {
            task = try cacheAnswer ?? body.makeTask(in: core.transport, for: request, options: options)
        } catch {
            // Bodies throw NetworkErrors (a missing upload file, a disk error); anything else is
            // reported as a transport failure carrying it.
            handle { $0.taskCreationFailed(error as? NetworkError ?? .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error]))) }
            return
        }
        // Before the task is published (attach, the lifecycle): whoever cancels it later finds it
        // on the caller's thread already.
        // (A cached answer has no connection for the caller's thread to drive.)
        if cacheAnswer == nil { delivery.driver?.adopt(task) }
        // Registered first, so that its first callback finds the transfer.
        core.registry.attach(task, to: self)
        let measures = !core.transport.measuresTransfers
        let sends = cacheAnswer == nil
        perform(event { state in
            if measures, state.clock.started == nil { state.clock.started = .now() }
            // Nothing is sent for a cached answer: no `willSend`.
            state.sending = sends ? request : nil
            state.cacheUse = cacheUse
            state.cacheAnswered = false
            state.taskOptions = options
            let action = state.lifecycle.taskCreated(task)
            if case .resume(_, armDeadline: true) = action, let due = state.deadlineAt {
                state.deadline = makeDeadlineTimer(at: due)
            }
            return action
        })
    }

    /// The transfer has ended: release what it held, then deliver its one completion.
    private func deliver(_ ending: Lifecycle.Ending, committing commit: (@Sendable (Delivery) -> Void)?) {
        var releaseSlot = ending.heldSlot
        if let task = ending.taskToCancel {
            if releaseSlot {
                // The connection stays busy until the transport confirms the end: the slot goes
                // back then (see TransferRegistry), not now.
                let queue = core.requestQueue
                let fallback = core.transport.confirmsCancels ? nil : Self.drainFallback
                core.registry.drain(task, fallback: fallback, on: core.timers) { queue.release() }
                releaseSlot = false
            } else {
                core.registry.detach(task)
            }
            core.cancel(task)
        }
        if ending.wasCancelled { delivery.markCancelled() }
        core.transferEnded(self, releasingSlot: releaseSlot)
        body.release()

        switch ending.outcome {
        case .success:
            // Only `judge` ends a transfer with success, and it always passes the commit.
            guard let commit else { return assertionFailure("a success ended without its output") }
            commit(delivery)
        case let .failure(error, response):
            notifyObservers { $0.didFail(error, context: $1) }
            let body = self.body
            let delivery = self.delivery
            if let requestCodeQueue {
                body.abandon { requestCodeQueue.async { body.deliver(failure: body.convert(error, response: response), through: delivery) } }
            } else {
                body.abandon { body.deliver(failure: body.convert(error, response: response), through: delivery) }
            }
        case let .rejected(error):
            let body = self.body
            let delivery = self.delivery
            body.abandon { body.deliver(failure: error, through: delivery) }
        }
    }

    /// Tells every observer, with the current attempt's context. The context is made only when
    /// there is an observer: it copies the request under the lock and reads its URL (about
    /// 1,800 instructions), and most networks have none.
    private func notifyObservers(_ tell: (any NetworkObserver, RequestContext) -> Void) {
        let observers = settings.observers
        guard !observers.isEmpty else { return }
        let context = self.context
        for observer in observers { tell(observer, context) }
    }

    /// Whether the request's deadline (``NetworkRequest/timeout``) has passed: `false` before the
    /// first attempt started, and without a deadline.
    private var deadlineHasPassed: Bool {
        guard let due = state.withLock({ $0.deadlineAt }) else { return false }
        return DispatchTime.now().uptimeNanoseconds >= due
    }

    /// The deadline's and the backoff's timers: one-shot, on the Network's timer queue; `nil`
    /// when never due.
    ///
    /// Each action holds the transfer strongly, and that keeps it no longer than the registry
    /// does: every ending cancels both timers in the same critical section (``event(_:)``), which
    /// drops the action, and a timer that fires drops it too. (A weak reference gave every
    /// transfer a side table: one allocation a request.) Each closure captures `self` alone:
    /// Swift then uses the object itself as the closure's context, where a captured closure
    /// beside it cost an allocation a request.
    private func makeDeadlineTimer(at due: UInt64) -> TimerQueue.Token? {
        core.timers.schedule(atUptime: due) { [self] in end(with: deadlinePassed) }
    }

    // MARK: - The cache

    /// What the cache does for an attempt's `request` (see ``CacheRules``), under the request's
    /// policy: its own ``TransferOptions/cachePolicy``, else the one a caller's `URLRequest` set,
    /// else the network's. A `HEAD` (`headOnly`) is answered from a fresh stored `GET`, head
    /// without body (RFC 9111 §4), and otherwise goes to the server: nothing is stored from it.
    private func plan(_ request: WireRequest, with cache: HTTPCache, headOnly: Bool) -> CachePlan {
        // The fields by lowercased name, made once: the rules read them several times.
        let fields = CachedResponse.varyKeys(request.fields)
        // The cache keeps bodies as they arrive decoded: a request that is to get a coded body
        // as sent (no decoding, or an `Accept-Encoding: identity` of its own) goes to the server.
        let url = request.url
        guard CacheRules.applies(toFields: fields), settings.decompressesResponses,
              ContentCoding.asksForDecoding(fields["accept-encoding"]) else { return .network(request, nil) }
        let policy = transferOptions.cachePolicy
            ?? (request.cachePolicy == .useProtocolCachePolicy ? settings.cachePolicy : request.cachePolicy)
        let now = Date()
        let key = HTTPCache.key(for: url)
        func use(validating stored: CachedResponse?, stores: Bool, staleIfError: CachedResponse?) -> CacheUse {
            CacheUse(cache: cache, key: key, fields: fields, requestURL: url, requestTime: now, stores: stores,
                     validating: stored, staleIfError: staleIfError)
        }
        let lookup = CacheRules.lookup(fields: fields, policy: policy, stored: { cache.stored(forKey: key) }, now: now)
        if headOnly {
            switch lookup {
            case let .serve(stored, age, _):
                return .answer(CachedResponseTask(head: stored.response(age: age, status: .cached), body: Data(),
                                                  registry: core.registry, queue: core.delegateQueue))
            case .validate, .load: return .network(request, nil)
            case .unavailable: break   // as for a GET, below
            }
        }
        switch lookup {
        case let .serve(stored, age, refresh):
            if refresh, case let .success(base) = baseRequest, cache.beginRefresh(key) {
                _ = core.schedule(CacheRefresh(request: base), target: .queue(.global()), progress: nil) { _ in cache.endRefresh(key) }
            }
            return .answer(CachedResponseTask(head: stored.response(age: age, status: .cached), body: stored.body,
                                              registry: core.registry, queue: core.delegateQueue))
        case let .validate(stored, conditions, staleIfError):
            var conditional = request
            for condition in conditions { conditional.set(condition.value, for: condition.name) }
            return .network(conditional, use(validating: stored, stores: true, staleIfError: staleIfError))
        case let .load(stores, staleIfError):
            guard stores || staleIfError != nil else { return .network(request, nil) }
            return .network(request, use(validating: nil, stores: stores, staleIfError: staleIfError))
        case .unavailable(onlyIfCached: true):
            // RFC 9111 §5.2.1.7: a cache that cannot answer `only-if-cached` says 504.
            var head = HTTPResponse(statusCode: 504, headers: ["Content-Length": "0"], url: url)
            head.cacheStatus = .cached
            return .answer(CachedResponseTask(head: head, body: Data(), registry: core.registry, queue: core.delegateQueue))
        case .unavailable(onlyIfCached: false):
            // As URLSession fails `.returnCacheDataDontLoad` with nothing stored.
            return .fail(.transport(URLError(.resourceUnavailable, userInfo: [NSURLErrorFailingURLErrorKey: url])))
        }
    }

    /// The stored response to hand the body in place of `head`, and how it was come by: brought
    /// up to date by a 304 (and stored again), or stale after a 5xx (``CacheUse``).
    private func cacheReplacement(for head: HTTPResponse) -> (CachedResponse, CacheStatus)? {
        let now = Date()
        guard let found = state.withLock({ $0.cacheUse?.replacement(for: head, now: now) }) else { return nil }
        if found.status == .revalidated, let use = state.withLock({ $0.cacheUse }) { use.cache.store(found.response, key: use.key) }
        return (found.response, found.status)
    }

    /// An unsafe request (`POST`, `PUT`, …) that succeeded: what was stored for its URL is no
    /// longer to be trusted (RFC 9111 §4.4).
    private func invalidateStored(in cache: HTTPCache, by head: HTTPResponse) {
        guard let request = state.withLock({ $0.lifecycle.request }), request.method != "GET" else { return }
        let method = request.method, url = request.url
        for stale in CacheRules.invalidated(by: head, method: method, requestURL: url) { cache.removeResponses(for: stale) }
    }

    // MARK: - Idle and connect timeouts

    /// Starts watching `task`, about to be resumed, for its idle and connect timeouts
    /// (``StallWatch``), in place of the task before it.
    private func watchStalls(of task: any TransportTask) {
        let now = DispatchTime.now().uptimeNanoseconds
        let keepsConnect = core.transport.enforcesConnectTimeouts
        let (due, previous) = state.withLock { state -> (UInt64?, TimerQueue.Token?) in
            defer { state.stallCheck = nil }
            guard let options = state.taskOptions else { return (nil, state.stallCheck) }
            state.stall = StallWatch(task: ObjectIdentifier(task), options: options, transportKeepsConnect: keepsConnect, now: now)
            return (Self.beforeDeadline(state.stall.firstCheck, state.deadlineAt), state.stallCheck)
        }
        if let previous { core.timers.cancel(previous) }
        if let due { scheduleStallCheck(at: due) }
    }

    /// Arms the one stall check; dropped at once if the transfer ended meanwhile (its ending took
    /// the timers it found, not this one).
    private func scheduleStallCheck(at due: UInt64) {
        guard let token = core.timers.schedule(atUptime: due, { [self] in checkStalls() }) else { return }
        let kept = state.withLock { state -> Bool in
            guard !state.lifecycle.hasEnded, state.stallCheck == nil else { return false }
            state.stallCheck = token
            return true
        }
        if !kept { core.timers.cancel(token) }
    }

    /// The stall check's timer fired: the running task has passed its idle or connect timeout
    /// and is failed through its transport (so its end comes in its own order of events, and
    /// the retry policy judges it), or it is alive and the next check is armed.
    private func checkStalls() {
        let now = DispatchTime.now().uptimeNanoseconds
        let found = state.withLock { state -> (StallWatch.Verdict, any TransportTask, TaskOptions?, URL?, UInt64?)? in
            state.stallCheck = nil
            guard let task = state.lifecycle.runningTask, ObjectIdentifier(task) == state.stall.task else { return nil }
            return (state.stall.verdict(at: now), task, state.taskOptions, state.lifecycle.request?.url, state.deadlineAt)
        }
        guard let (verdict, task, options, url, deadline) = found else { return }
        switch verdict {
        case let .checkAgain(at: due):
            if let due = Self.beforeDeadline(due, deadline) { scheduleStallCheck(at: due) }
        case .idlePassed:
            core.fail(task, with: .timedOut(TimeoutExceeded(kind: .idle, seconds: options?.idleTimeout, url: url)))
        case .connectPassed:
            core.fail(task, with: .timedOut(TimeoutExceeded(kind: .connect, seconds: options?.connectTimeout, url: url)))
        }
    }

    /// `check`, unless the request's deadline comes first: it ends the request anyway, so a check
    /// due then is never needed. (With the defaults, a 60 s deadline and a 60 s idle timeout, no
    /// stall timer is armed at all: a timer a request was about 3,000 instructions.)
    private static func beforeDeadline(_ check: UInt64?, _ deadline: UInt64?) -> UInt64? {
        guard let check else { return nil }
        if let deadline, check >= deadline { return nil }
        return check
    }

    /// The backoff's timer (see ``makeDeadlineTimer(at:)``).
    private func makeBackoffTimer(after interval: TimeInterval) -> TimerQueue.Token? {
        core.timers.schedule(after: interval) { [self] in handle { $0.backoffElapsed() } }
    }
}

/// What a ``Transfer`` keeps under its lock.
private struct TransferState {
    var lifecycle = TransferLifecycle<any TransportTask>()
    var deadline: TimerQueue.Token?
    /// When the request's deadline passes, in `DispatchTime` uptime nanoseconds; `nil` for none
    /// (see ``RequestTimeout/deadline(after:from:)``). Fixed when the first attempt starts.
    var deadlineAt: UInt64?
    var deadlineFixed = false
    var backoff: TimerQueue.Token?
    /// The request the current task sends, as the observers' `willSend` sees it (cookies included).
    var sending: WireRequest?
    /// The current task's options (its timeouts, as the engine was given them).
    var taskOptions: TaskOptions?
    /// The current task's idle and connect timeouts, and the timer that checks them.
    var stall = StallWatch()
    var stallCheck: TimerQueue.Token?
    /// What the current response's body decodes to, when it arrives decoded.
    var decoding: DecompressionGuard?
    /// What the cache has to do with the current task (``CacheUse``), if anything.
    var cacheUse: CacheUse?
    /// The cache answered in place of the current task's response (a 304, a 5xx): the rest of
    /// that response's body is nobody's.
    var cacheAnswered = false
    /// The attempt's own timing, for a transport that reports no metrics (URLSession on Linux).
    var clock = AttemptClock()
}

/// When the current attempt's first task was made and its last head arrived: what Courier can
/// time of a transfer whose transport reports no metrics.
struct AttemptClock {
    var started: DispatchTime?
    var headArrived: DispatchTime?
}
