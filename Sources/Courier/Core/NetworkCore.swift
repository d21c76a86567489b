import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The core behind a ``Network``: its transport (the curl engine, a URLSession or a stub), the
/// delegate queue, the request queue and the registry of transfers. Every calling convention ends up in ``schedule(_:target:progress:completion:)``.
///
/// Queues, and what runs on each:
/// - `delegateQueue` (serial): every URLSession (and stub) delegate callback, and there the
///   validation and decoding of small bodies; on the curl engine the loop thread takes its place. Nothing here may block or wait for URLSession, but a stream
///   waiting for its consumer to make room (``StreamBody``; released by any end of its transfer).
/// - the caller's thread (or the one that freed a slot): creating and resuming transport tasks
///   when a slot is free, never on the delegate queue.
/// - `requestQueue.startQueue` (serial): starts asked for on the delegate queue, and heavy ones.
/// - `workQueue` (concurrent): `validate` and `output(from:response:)` of large bodies (small
///   ones are processed on the delegate queue), and the interceptors.
/// - `requestCodeQueue` (concurrent, targeting the caller's queue), only in a network made with
///   ``Network/init(queue:)``: every callback request's `validate`, `output` and `convertError`.
/// - `timerQueue` (serial): deadline timers.
/// - a global queue: `URLSessionTask.cancel()`, which blocks on Linux.
/// - the caller's callback queue: progress and completion handlers of the callback API.
final class NetworkCore: Sendable {
    let transport: any Transport
    let registry = TransferRegistry()
    let requestQueue: RequestQueue
    let delegateQueue: DispatchQueue
    let workQueue: DispatchQueue
    /// Where every callback request's own response code (`validate`, `output`, `convertError`)
    /// runs, whatever the body's size, in a network made with ``Network/init(queue:)``: a queue
    /// of Courier's that targets the one given. `nil` (Courier's choice per body) otherwise.
    let requestCodeQueue: DispatchQueue?
    let timerQueue: DispatchQueue
    /// Deadlines and retry backoffs of every transfer, on one timer (see ``TimerQueue``).
    let timers: TimerQueue

    /// Marks Courier's internal serial queues, where a blocking call could never finish.
    static let internalQueueKey = DispatchSpecificKey<String>()
    /// Marks the delegate queue, which must never wait for URLSession's own thread.
    static let delegateQueueKey = DispatchSpecificKey<Bool>()

    private let isShuttingDown = Locked(false)
    private let transferIDs = Locked<UInt64>(0)

    // Run-time settings, each changeable from any thread; see the matching `Network` properties.
    /// The ones a transfer keeps (``TransferSettings``): observers, interceptors, retry policy,
    /// redirects, decompression, the cache.
    let settings: Locked<TransferSettings>
    let defaults = Locked(NetworkDefaults())
    let maximumResponseSize = Locked<Int64>(100 << 20)
    /// The network's idle and connect timeouts, beneath each request's own
    /// (``NetworkRequest/transferOptions``): `nil` for none.
    let timeouts: TransferOptions
    /// A setting the engine cannot honour (say, TLS options on URLSession): every request fails
    /// with this error rather than run without it.
    let unsupportedSetting: NetworkError?
    let coders = Locked(SharedCoders(encoder: JSONEncoder(), decoder: JSONDecoder()))
    /// ``Network/userAgent``.
    let userAgent: Locked<String?>
    /// The cookies Courier puts on each attempt and redirect itself, where URLSession would
    /// choose them wrongly (see ``SessionCookies``); `nil` when URLSession does it.
    let sessionCookies: SessionCookies?

    func nextTransferID() -> UInt64 {
        transferIDs.withLock { id in
            id += 1
            return id
        }
    }

    /// Builds the request and completes it with the defaults; the URL must then be absolute
    /// http(s), and the timeout meaningful. Courier's own request types are built straight into a
    /// ``WireRequest``; any other goes through its `makeURLRequest()`.
    @inline(__always)
    func prepare<R: NetworkRequest>(_ request: CodingScopedRequest<R>) -> Result<WireRequest, NetworkError> {
        // The base asked directly: through the scope's own conformance it would be asked whether
        // it is one of Courier's types twice (a dynamic cast, about 2,000 instructions each).
        // And inlined, so that the scope's generic type is looked up once, by its maker.
        prepare(request.base, coders: request.coders)
    }

    /// ``prepare(_:)`` for `request` with `coders` bound while its own code runs.
    func prepare<R: NetworkRequest>(_ request: R, coders: SharedCoders) -> Result<WireRequest, NetworkError> {
        do {
            try RequestTimeout.check(request.timeout)
            var wire = try coders.bound { try request.wireRequest() }
            // The scheme read once for the defaults and the last check (each read parses the URL).
            let scheme = wire.url.scheme
            let moved = try defaults.withLock { $0 }.apply(to: &wire, scheme: scheme)
            if !wire.has("User-Agent"), let agent = userAgent.withLock({ $0 }) {
                Self.addUserAgent(agent, to: &wire)
            }
            if let unsupportedSetting { throw unsupportedSetting }
            if let rateLimit = request.rateLimit { try check(rateLimit) }
            if let problem = request.transferOptions.problem { throw NetworkError.invalidRequest(problem) }
            if let version = request.transferOptions.httpVersion, version != .http2, !transport.choosesHTTPVersionPerRequest {
                throw NetworkError.invalidRequest("a request's own HTTP version needs the curl engine: this one cannot choose it per request")
            }
            try URLValidation.check(wire.url, scheme: moved ? wire.url.scheme : scheme)
            return .success(wire)
        } catch {
            // `makeURLRequest` reports its own problems as NetworkErrors; anything else thrown
            // while building the request means it has no usable URL.
            return .failure(error as? NetworkError ?? .invalidURL(String(describing: error)))
        }
    }

    /// Adds `agent` as the `User-Agent` of a request that has none. Its value is checked with
    /// every other field in ``finalize(_:)``: one with CR, LF or another control character fails
    /// the request with ``NetworkError/invalidRequest(_:)`` (FoundationNetworking's `setValue`
    /// would drop it silently). The name is in canonical form already: putting it in that form
    /// again, and checking it, cost about 1,000 instructions a request.
    static func addUserAgent(_ agent: String, to request: inout WireRequest) {
        request.appendNew(name: "User-Agent", value: agent)
    }

    /// A request's own rate limit must be one the engine can honour.
    private func check(_ rateLimit: RateLimit) throws(NetworkError) {
        if let problem = rateLimit.problem { throw .invalidRequest(problem) }
        if rateLimit.isLimited, !transport.honoursRateLimits {
            throw .invalidRequest("a rate limit needs the curl engine: the URLSession engine cannot apply it")
        }
    }

    /// Runs `interceptors`' `adapt` (the transfer's, from when it was scheduled), off the caller's thread when there are any, and then
    /// ``finalize(_:)``: every attempt's request passes here last before it is queued. The
    /// context is made only for interceptors that will see it (it copies the transfer's request),
    /// and so is the `URLRequest` they are given.
    func adapt(_ request: WireRequest, interceptors: [any RequestInterceptor], context makeContext: @autoclosure () -> RequestContext,
               completion: @escaping @Sendable (Result<WireRequest, NetworkError>) -> Void) {
        let chain = InterceptorChain(interceptors: interceptors)
        guard !chain.interceptors.isEmpty else { return completion(Self.finalize(request)) }
        let context = makeContext()
        workQueue.async {
            chain.adapt(request.urlRequest, context: context) { adapted in
                completion(adapted.flatMap { urlRequest in
                    Result { () throws(NetworkError) in try WireRequest(urlRequest) }.flatMap(Self.finalize)
                })
            }
        }
    }

    /// The last check of an attempt's request, after the defaults and the interceptors, whoever
    /// built it (an overridden `makeURLRequest` too): the method must be a token and every header
    /// field safe to send (``HeaderValidation``). (A `timeoutInterval` set on it becomes the
    /// attempt's idle timeout: ``RequestTimeout/idleTimeout(of:)``.)
    static func finalize(_ request: WireRequest) -> Result<WireRequest, NetworkError> {
        do throws(NetworkError) {
            try HeaderValidation.checkMethod(request.method)
            try HeaderValidation.check(request)
        } catch {
            return .failure(error)
        }
        return .success(request)
    }

    /// Asks the interceptors, then `policy`, how long to wait before another attempt (`nil`: none).
    func retryDelay(for request: WireRequest, error: NetworkError, response: HTTPResponse?, context: RequestContext,
                    policy: RetryPolicy, interceptors: [any RequestInterceptor],
                    completion: @escaping @Sendable (TimeInterval?) -> Void) {
        let method = HTTPMethod(rawValue: request.method)
        let byPolicy: @Sendable () -> TimeInterval? = { policy.delay(afterAttempt: context.attempt, method: method, error: error) }
        let chain = InterceptorChain(interceptors: interceptors)
        guard !chain.interceptors.isEmpty else { return completion(byPolicy()) }
        workQueue.async {
            chain.retry(request.urlRequest, error: error, response: response, context: context) { decision in
                let allowed = context.attempt < RetryPolicy.absoluteAttemptLimit
                switch decision {
                case .retry: completion(allowed ? 0 : nil)
                case let .retryAfter(delay): completion(allowed ? max(0, delay) : nil)
                case .doNotRetry: completion(nil)
                case .useDefault: completion(byPolicy())
                }
            }
        }
    }

    /// A core over the transport `makeTransport` builds around the registry and delegate queue.
    /// `workQueue`, when given, is the queue the requests' own code runs on (see ``requestCodeQueue``).
    init(maximumConcurrentRequests: Int, sessionCookies: SessionCookies? = nil, unsupportedSetting: NetworkError? = nil,
         timeouts: TransferOptions = TransferOptions(), cache: HTTPCache? = nil,
         cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy, workQueue userQueue: DispatchQueue? = nil, makeTransport: (TransferRegistry, DispatchQueue) -> any Transport) {
        _ = Self.endingMetadata
        self.timeouts = timeouts
        self.settings = Locked(TransferSettings(TransferSettings.Values(cache: cache, cachePolicy: cachePolicy)))
        self.sessionCookies = sessionCookies
        self.unsupportedSetting = unsupportedSetting
        delegateQueue = DispatchQueue(label: "courier.session-delegate", qos: .userInitiated)
        let startQueue = DispatchQueue(label: "courier.start", qos: .userInitiated)
        timerQueue = DispatchQueue(label: "courier.timers", qos: .userInitiated)
        timers = TimerQueue(queue: timerQueue)
        workQueue = DispatchQueue(label: "courier.work", qos: .userInitiated, attributes: .concurrent)
        // Ours, targeting theirs: the code runs on their queue (its threads, its QoS, its serial
        // order if it is serial), and Courier never changes their queue. The interceptors stay on
        // the work queue: blocking calls need them too, and may be made on the caller's queue.
        requestCodeQueue = userQueue.map { DispatchQueue(label: "courier.request-code", attributes: .concurrent, target: $0) }
        delegateQueue.setSpecific(key: Self.internalQueueKey, value: "the session's delegate queue")
        delegateQueue.setSpecific(key: Self.delegateQueueKey, value: true)
        startQueue.setSpecific(key: Self.internalQueueKey, value: "Courier's start queue")
        timerQueue.setSpecific(key: Self.internalQueueKey, value: "Courier's timer queue")
        requestQueue = RequestQueue(limit: maximumConcurrentRequests, startQueue: startQueue)
        transport = makeTransport(registry, delegateQueue)
        userAgent = Locked(Self.configuredUserAgent(of: transport) ?? CourierVersion.userAgent)
    }

    /// The `User-Agent` the transport's configuration sends with every request
    /// (`httpAdditionalHeaders`), which is then the network's default.
    private static func configuredUserAgent(of transport: any Transport) -> String? {
        transport.configuredHeaders.first { $0.name.caseInsensitiveCompare("User-Agent") == .orderedSame }?.value
    }

    /// Creates the transfer for `request`, its body collected in memory, and queues it.
    func schedule<R: NetworkRequest>(
        _ request: R, target: CallbackTarget, progress: (@Sendable (TransferProgress) -> Void)?,
        completion: @escaping @Sendable (Result<R.Output, any Error>) -> Void
    ) -> NetworkTask {
        let request = withCoders(request)
        let baseRequest = prepare(request)
        let terms = RequestTerms(request)
        // The body keeps the request: handed over (`consume`), not copied.
        let body = MemoryBody(request: consume request, sizeLimit: maximumResponseSize.withLock { $0 }, completion: completion)
        return submit(Transfer(core: self, terms: terms, baseRequest: baseRequest, body: body,
                               delivery: Delivery(target: target, progress: progress)))
    }

    /// `request` with this network's JSON coders bound while its own code runs (see ``SharedCoders``).
    /// The coders are taken now: a change to them applies to requests scheduled afterwards.
    @inline(__always)
    func withCoders<R: NetworkRequest>(_ request: R) -> CodingScopedRequest<R> {
        CodingScopedRequest(base: request, coders: coders.withLock { $0 })
    }

    /// Registers a transfer and sets its first attempt going.
    func submit(_ transfer: any ScheduledTransfer) -> NetworkTask {
        if registry.add(transfer) {
            transfer.submit()
        } else {
            transfer.cancel()   // the network is closed: the usual cancelled completion, at once
        }
        return NetworkTask(transfer)
    }

    /// Bookkeeping once a transfer has ended: frees its slot and, if the Network is gone and
    /// this was the last transfer, invalidates the session.
    func transferEnded(_ transfer: any ScheduledTransfer, releasingSlot: Bool) {
        if releasingSlot { requestQueue.release() }
        if registry.remove(transfer) == 0, isShuttingDown.withLock({ $0 }) {
            invalidateSession()
        }
    }

    func cancelAll() {
        cancel(registry.liveTransfers)
    }

    func close() {
        cancel(registry.close())
    }

    /// Cancels the queued transfers first: cancelling a running one frees its slot (at once on
    /// the curl engine), which would otherwise start a queued one that is about to be cancelled.
    private func cancel(_ transfers: [any ScheduledTransfer]) {
        let (queued, started) = transfers.reduce(into: ([any ScheduledTransfer](), [any ScheduledTransfer]())) { split, transfer in
            if transfer.publicState == .queued { split.0.append(transfer) } else { split.1.append(transfer) }
        }
        for transfer in queued + started { transfer.cancel() }
    }

    /// The reason a blocking call on the current thread could never finish, or `nil`.
    func deadlockReason() -> String? {
        if let queue = DispatchQueue.getSpecific(key: Self.internalQueueKey) {
            return "called on \(queue), which the request itself needs"
        }
        // Only the curl engine runs transfers on threads of its own (its loop, and a blocking
        // caller's thread while it waits); the words say so.
        return transport.ownsCurrentThread
            ? "called on a thread that runs the curl engine's transfers (its loop thread, or a blocking call's own while it waits), which the request itself needs"
            : nil
    }

    /// The owning ``Network`` is gone: let running and queued transfers end, then release the session
    /// (a URLSession holds its delegate until invalidated).
    func shutDownWhenIdle() {
        isShuttingDown.withLock { $0 = true }
        if registry.liveCount == 0 { invalidateSession() }
    }

    private func invalidateSession() {
        // Creating a task on an invalidated session is a crash, not an error. No start can be
        // under way here (a starting transfer is live, and nobody can schedule a new one on a
        // released Network); going through the start queue also puts this after any start
        // already queued there.
        let transport = self.transport
        requestQueue.startQueue.async { transport.invalidate() }
    }
}

extension NetworkCore {
    /// Cancels `task`: the transport's, or a cached answer (``CachedResponseTask``), which no
    /// transport knows.
    func cancel(_ task: any TransportTask) {
        if let answer = task as? CachedResponseTask { return answer.cancel() }
        transport.cancel(task)
    }

    /// Fails a running `task` (see ``Transport/fail(_:with:)``), a cached answer too.
    func fail(_ task: any TransportTask, with error: NetworkError) {
        if let answer = task as? CachedResponseTask { return answer.fail(with: error) }
        transport.fail(task, with: error)
    }
}
