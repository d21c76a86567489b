import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs ``NetworkRequest``s: one long-lived engine (libcurl's multi handle driven by a thread of
/// its own, or a URLSession; see <doc:Engines>), a concurrency limit, and every calling
/// convention on top of one Dispatch-based core.
///
/// ```swift
/// // Callbacks, on the queue you choose:
/// Network.shared.schedule(request, callbackQueue: .global()) { result in print(result) }
/// // Blocking, for scripts and command-line tools:
/// let result = Network.shared.scheduleSynchronously(request)
/// // async/await:
/// let output = try await Network.shared.response(for: request)
/// ```
///
/// All three share the same queueing, deadline, cancellation and error semantics. Every scheduled
/// request ends with exactly one completion, whatever races with it.
public final class Network: Sendable {
    /// A network with the default configuration, callbacks on the main queue, and at most 6
    /// requests in flight.
    public static let shared = Network()

    let core: NetworkCore

    /// The engine carrying this network's requests: what ``Engine/automatic`` resolved to, or
    /// ``Engine/urlSession`` where the curl engine was asked for but libcurl cannot be loaded
    /// (or is older than 7.68.0; a warning then goes to stderr once per process);
    /// ``Engine/stub`` for `Network(stub:)`. Never ``Engine/automatic``.
    public let engine: Engine

    /// Where completion and progress handlers of ``schedule(_:callbackQueue:progress:completion:)``
    /// run when the call does not name a queue.
    public let callbackQueue: DispatchQueue

    /// Creates a network with its own engine (and so its own connection pool).
    ///
    /// - Parameters:
    ///   - configuration: The session configuration (copied). <doc:Engines> lists which of its
    ///     properties each engine honours. Its numbers may take any value: on URLSession, a
    ///     `timeoutIntervalForRequest` that is not a number or is over a week is taken as a week
    ///     (FoundationNetworking would trap on it); on curl, any that is not positive is no limit.
    ///   - callbackQueue: Default queue for completion and progress handlers.
    ///   - maximumConcurrentRequests: How many requests may be in flight at once (at least 1);
    ///     the rest wait in FIFO order. Any `Int` is accepted: 0 and below are taken as 1.
    ///   - engine: What carries the requests: libcurl on Linux and URLSession on Apple platforms
    ///     by default (see ``Engine``); ``engine`` tells which one is in use.
    ///   - tls: TLS settings (extra certificate authorities, pinned keys, a client certificate,
    ///     insecure mode). The curl engine only: on URLSession, customised options make every
    ///     request fail with `NetworkError.tls(.unsupportedByEngine, _)` rather than be silently
    ///     ignored.
    ///   - connection: The HTTP version, a Unix domain socket to connect to, rate limits (see
    ///     ``ConnectionOptions``). The curl engine only, but for the default: on URLSession, other
    ///     options make every request fail with ``NetworkError/invalidRequest(_:)``; so do options
    ///     that cannot work on either (an empty or too long socket path, a rate of 0).
    public convenience init(
        configuration: URLSessionConfiguration = .default,
        callbackQueue: DispatchQueue = .main,
        maximumConcurrentRequests: Int = 6,
        engine: Engine = .automatic,
        tls: TLSOptions = TLSOptions(),
        connection: ConnectionOptions = ConnectionOptions()
    ) {
        self.init(configuration: configuration, callbackQueue: callbackQueue, maximumConcurrentRequests: maximumConcurrentRequests,
                  engine: engine, tls: tls, connection: connection, workQueue: nil)
    }

    /// The designated path of every public initializer. `workQueue`, when given, is where the
    /// requests' own code runs (see ``init(queue:)``).
    convenience init(configuration: URLSessionConfiguration, callbackQueue: DispatchQueue, maximumConcurrentRequests: Int,
                     engine: Engine, tls: TLSOptions, connection: ConnectionOptions = ConnectionOptions(),
                     workQueue: DispatchQueue?) {
        let resolved = Engine.resolve(engine)
        Engine.warnOnceIfFallingBack(requested: engine, resolved: resolved)
        let core = resolved.makeCore(configuration: configuration, maximumConcurrentRequests: maximumConcurrentRequests,
                                     tls: tls, connection: connection, workQueue: workQueue)
        self.init(core: core, engine: resolved, callbackQueue: callbackQueue)
    }

    init(core: NetworkCore, engine: Engine, callbackQueue: DispatchQueue) {
        self.core = core
        self.engine = engine
        self.callbackQueue = callbackQueue
    }

    deinit {
        // Requests already scheduled still run to their end; the session is released after them.
        core.shutDownWhenIdle()
    }

    /// How many requests may be in flight at once (at least 1: 0 and below, `Int.min` included,
    /// are taken as 1; `Int.max` is no limit). Thread-safe; a change applies at once to the
    /// requests still waiting (raising it starts more of them right away).
    public var maximumConcurrentRequests: Int {
        get { core.requestQueue.limit }
        set { core.requestQueue.limit = newValue }
    }

    /// Schedules a request and calls `completion` exactly once with its result.
    ///
    /// - Parameters:
    ///   - request: What to send and how to read the answer.
    ///   - callbackQueue: Where `progress` and `completion` run; defaults to the request's
    ///     ``HPNetworkRequestMembers/finishingQueue`` if it chose one, else the network's ``callbackQueue``.
    ///   - progress: Called with download (and upload) progress: throttled to about 20 events a
    ///     second, never going backwards, the last one at 100% when the body is complete.
    ///     All progress events come before the completion.
    ///   - completion: Receives the output, or the error (a ``NetworkError`` unless the request's
    ///     `convertError` maps it to another type).
    /// - Returns: A handle to cancel the request. The request runs whether or not it is kept.
    @discardableResult @preconcurrency
    public func schedule<R: NetworkRequest>(
        _ request: R,
        callbackQueue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<R.Output, any Error>) -> Void
    ) -> NetworkTask {
        let queue = callbackQueue ?? request.chosenFinishingQueue ?? self.callbackQueue
        return core.schedule(request, target: .queue(queue), progress: progress, completion: completion)
    }

    /// How failed requests of this network are retried, unless a request sets its own
    /// (``NetworkRequest/retryPolicy``). Thread-safe; applies to requests scheduled afterwards.
    /// Default: ``RetryPolicy/init(maxAttempts:baseDelay:maximumDelay:maximumRetryAfter:retriesNonIdempotentRequests:retryableStatusCodes:retryableErrorCodes:)``
    /// with its defaults (3 attempts, idempotent methods only).
    public var retryPolicy: RetryPolicy {
        get { core.settingsSnapshot().retryPolicy }
        set { core.changeSettings { $0.retryPolicy = newValue } }
    }

    /// Values added to every request: base URL, headers, query items. Thread-safe; applies to
    /// requests scheduled afterwards (e.g. set a token after sign-in).
    public var defaults: NetworkDefaults {
        get { core.defaults.withLock { $0 } }
        set { core.defaults.withLock { $0 = newValue } }
    }

    /// Interceptors run, in order, on every attempt of every request. Thread-safe; applies to
    /// requests scheduled afterwards: a request keeps the interceptors it was scheduled with for
    /// all its attempts (see <doc:Resilience>).
    public var interceptors: [any RequestInterceptor] {
        get { core.settingsSnapshot().interceptors }
        set { core.changeSettings { $0.interceptors = newValue } }
    }

    /// Observers told about every attempt, response, retry and failure. Thread-safe; applies to
    /// requests scheduled afterwards: an observer hears every event of the requests scheduled
    /// while it was set, from the first `willSend` to the end, and none of the others'.
    public var observers: [any NetworkObserver] {
        get { core.settingsSnapshot().observers }
        set { core.changeSettings { $0.observers = newValue } }
    }

    /// The largest body, in bytes, an in-memory request accepts; a larger one fails with
    /// ``NetworkError/responseTooLarge(_:)`` as soon as it is announced or reached, instead of
    /// exhausting memory. Downloads to disk are not limited. Default: 100 MB. A negative value is
    /// taken as 0 (only empty bodies pass). Thread-safe; applies to requests scheduled afterwards.
    public var maximumResponseSize: Int64 {
        get { core.maximumResponseSize.withLock { $0 } }
        set { core.maximumResponseSize.withLock { $0 = max(0, newValue) } }
    }

    /// How far a compressed body may inflate when Courier decodes it (in-memory and streamed
    /// bodies, by default): at least 10 MiB, and beyond that 100 times the compressed bytes that
    /// arrived; past it the transfer ends with ``NetworkError/limitExceeded(_:)``. A guard against
    /// decompression bombs. Thread-safe; applies to requests scheduled afterwards. See
    /// ``DecompressionLimit``.
    public var decompressionLimit: DecompressionLimit {
        get { core.settingsSnapshot().decompressionLimit }
        set { core.changeSettings { $0.decompressionLimit = newValue } }
    }

    /// How many redirects a request follows before failing with
    /// ``NetworkError/tooManyRedirects(_:)``. Default: 10. A negative value is taken as 0 (no
    /// redirect is followed). Thread-safe; applies to requests scheduled afterwards.
    ///
    /// Any limit holds on both engines, above 20 too: FoundationNetworking stops a task at its
    /// 21st redirect, so the URLSession engine follows every 20th redirect with a new task.
    public var maximumRedirects: Int {
        get { core.settingsSnapshot().maximumRedirects }
        set { core.changeSettings { $0.maximumRedirects = max(0, newValue) } }
    }

    /// The encoder of `.json` bodies (``RequestBody/json(_:)``) for requests on this network.
    /// Thread-safe; applies to requests scheduled afterwards. Default: a plain `JSONEncoder()`.
    ///
    /// A body made with ``RequestBody/json(_:encoder:)`` uses its own encoder instead.
    ///
    /// The network uses the very instance you give it (no copy: a `JSONEncoder` cannot be copied
    /// faithfully, being an open class with `userInfo`), so changing the instance's options in
    /// place, as `network.jsonEncoder.keyEncodingStrategy = …` does, changes the network's
    /// encoding too. Configure it before scheduling requests: changing it while requests are
    /// being encoded is unsupported (which of them see the change is undefined, and with a
    /// Foundation that does not lock the coder's options, as older Apple ones, a data race).
    ///
    /// ```swift
    /// let encoder = JSONEncoder()
    /// encoder.keyEncodingStrategy = .convertToSnakeCase
    /// encoder.dateEncodingStrategy = .iso8601
    /// network.jsonEncoder = encoder   // {"createdAt": …} goes out as {"created_at": "2025-…"}
    /// ```
    public var jsonEncoder: JSONEncoder {
        get { core.coders.withLock { $0.encoder } }
        set { core.coders.withLock { $0 = SharedCoders(encoder: newValue, decoder: $0.decoder) } }
    }

    /// The decoder of ``DecodableRequest``s, ``ErrorDecodingRequest``s and `Request.decoding(_:)`
    /// on this network, unless a request names its own (by implementing ``DecodableRequest/decoder``,
    /// ``ErrorDecodingRequest/errorDecoder``, or passing `decoder:`). Thread-safe; applies to
    /// requests scheduled afterwards. Default: a plain `JSONDecoder()`.
    ///
    /// As with ``jsonEncoder``, the network uses the very instance you give it: configure it
    /// before scheduling requests; changing it while responses are being decoded is unsupported.
    ///
    /// ```swift
    /// network.jsonDecoder.keyDecodingStrategy = .convertFromSnakeCase   // before the first request
    /// let user = try await network.response(for: GetUser(id: 1))       // "first_name" fills firstName
    /// ```
    public var jsonDecoder: JSONDecoder {
        get { core.coders.withLock { $0.decoder } }
        set { core.coders.withLock { $0 = SharedCoders(encoder: $0.encoder, decoder: newValue) } }
    }

    /// Cancels every request of this network, running or queued. Each gets its completion with
    /// ``NetworkError/cancelled``.
    public func cancelAll() {
        core.cancelAll()
    }

    /// Cancels every request of this network, running or queued, and refuses new ones from now
    /// on: a request scheduled after `close()` (in any calling convention) completes at once
    /// with ``NetworkError/cancelled`` and never reaches the network. Cannot be undone.
    ///
    /// Use it to shut down, say when a command-line tool gets Ctrl-C while other threads may
    /// still be about to start transfers: ``cancelAll()`` ends only what exists at that moment.
    /// Downloads cancelled this way keep their `.partial` file, as with any cancel.
    public func close() {
        core.close()
    }

    /// Whether ``close()`` has been called. Thread-safe.
    public var isClosed: Bool {
        core.registry.isClosed
    }
}
