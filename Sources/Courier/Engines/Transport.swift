import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transfer's bytes travel through: the Network's URLSession, libcurl (``CurlTransport``),
/// or a stub that answers without a network (`Network(stub:)`, see ``StubServer``).
///
/// Whichever it is, the events reach the transfer the same way, one at a time per task: on the
/// Network's delegate queue through the ``TransferRegistry`` (URLSession, stub), or straight from
/// the task on the curl loop thread (the task keeps its transfer: ``TransportTask/routesItself``).
/// So the stub exercises all of Courier's own code.
///
/// What the core asks a transport: a task for a request (with the ``TaskOptions`` it is to
/// keep), a cancel, a failure of a running task (a limit Courier watches passed), and a few
/// capabilities. What the transport hands back (through the registry, or from the task): the
/// head, body chunks, bytes sent, redirects, and one ``TransportOutcome`` with its metrics.
/// Each engine classifies its own failures into the ``NetworkError`` callers see (see
/// `CurlFailure`, ``URLSessionFailure``): nothing of an engine's codes or messages crosses the seam.
protocol Transport: Sendable {
    func makeDataTask(with request: WireRequest, options: TaskOptions) -> any TransportTask
    func makeUploadTask(with request: WireRequest, fromFile file: URL, options: TaskOptions) -> any TransportTask
    /// Whether a `GET` with a body goes out as it is (see ``MethodBodyCheck``).
    var sendsGETBodies: Bool { get }
    /// Whether a redirect to another origin keeps the credential headers
    /// (``LibcurlOptions/sendsCredentialsToOtherHosts``). Default: `false`.
    var keepsCredentialsAcrossOrigins: Bool { get }
    /// Whether a request's ``RateLimit`` is honoured; where not, a request with one fails
    /// before anything is sent. Default: `false`.
    var honoursRateLimits: Bool { get }
    /// Whether a request's own ``TransferOptions/httpVersion`` is honoured; where not, a request
    /// that asks for another than ``HTTPVersionPreference/http2`` (every engine's default) fails
    /// before anything is sent. Default: `false`.
    var choosesHTTPVersionPerRequest: Bool { get }
    /// Whether a task's ``TaskOptions/connectTimeout`` is kept by the transport itself, exactly
    /// (libcurl's `CURLOPT_CONNECTTIMEOUT_MS`). Where not (URLSession reports no connect event),
    /// the transfer watches for the task's first sign of life instead (see ``StallWatch``).
    /// Default: `false`.
    var enforcesConnectTimeouts: Bool { get }
    /// Whether every task reports its ``TransferMetrics`` when it completes (curl), so that the
    /// transfer need not time it itself. Default: `false`.
    var measuresTransfers: Bool { get }
    /// The header fields the transport's configuration sends with every request
    /// (`httpAdditionalHeaders`), for the network's default `User-Agent`. Default: none.
    var configuredHeaders: [(name: String, value: String)] { get }
    /// Whether the current thread is one the transport needs to move its own transfers (the curl
    /// engine's loop thread): a blocking call made there could never finish. Default: `false`.
    var ownsCurrentThread: Bool { get }
    /// Whether every cancelled task is sure to report its end (`TransferRegistry.taskDidComplete`),
    /// so that a cancelled transfer's slot needs no fallback timer to come back: armed inside
    /// `cancel()`, that timer was half of the time a cancel took to return.
    var confirmsCancels: Bool { get }
    /// How many redirects one task may follow by itself before Courier must follow the next one
    /// with a new task (see ``TransferLifecycle/redirectMet(_:maximum:followedPerTask:)``), or
    /// `nil` for no ceiling. Default: `nil`.
    var redirectsFollowedPerTask: Int? { get }
    /// A driver for one blocking call, whose thread then runs that call's transfers itself
    /// (``CallerDriver``), or `nil` when this transport cannot (or, at its limit, will not).
    func makeCallerDriver() -> (any CallerDriver)?
    /// Cancels a task whose transfer has ended (or that was never wanted): never blocks the
    /// caller, never under a lock.
    func cancel(_ task: any TransportTask)
    /// Ends a running task with `error` as its outcome (a limit the transfer watches passed):
    /// reported like any end, in the task's own order of events (the curl loop, the delegate
    /// queue), so that no chunk reaches the transfer after it; then the task is cancelled. A
    /// task that has ended already is left as it is.
    func fail(_ task: any TransportTask, with error: NetworkError)
    /// Releases the transport once its Network is gone and every transfer has ended.
    func invalidate()
}

/// One request in flight on a ``Transport``.
///
/// **Flow control** (for streamed bodies, see ``StreamBody``). A transfer may answer a chunk of
/// the response body with ``ReceiveDecision/refused``: it has no room for it now. A task that
/// ``canPauseReceiving`` (the curl engine's) then keeps that chunk, stops reading the socket, so
/// TCP slows the server down, and offers the same chunk again once ``resumeReceiving()`` is
/// called. A task that cannot pause (URLSession's: Linux offers no way) is never refused: the
/// transfer waits for room instead, on the thread that delivered the chunk (see StreamBody).
protocol TransportTask: AnyObject {
    func resume()
    func cancel()
    /// Whether the task has ended by itself already (then it needs no cancel).
    var hasCompleted: Bool { get }
    /// Whether the task can hold back a chunk its transfer refused and stop reading until
    /// ``resumeReceiving()``. Default: `false`.
    var canPauseReceiving: Bool { get }
    /// Offers the refused chunk again and goes on reading. Called from any thread, at most once
    /// per refusal; does nothing once the task has ended.
    func resumeReceiving()
    /// The transfer this task's events go to, handed over by the ``TransferRegistry`` when the
    /// task is attached (before it is resumed). A task that keeps it (the curl engine's) reports
    /// head, chunks, bytes sent and redirects to it straight away, with no lookup per event; one
    /// that does not (URLSession's, whose delegate has only the task) looks its transfer up in
    /// the registry instead. Default: not kept.
    func deliverEvents(to transfer: any ScheduledTransfer)
    /// No event of this task may reach its transfer any more (the transfer has ended, or the
    /// registry drains the task): called by the registry before it stops routing the task.
    func stopDeliveringEvents()
    /// Whether the task routes its own end: it keeps its transfer (``deliverEvents(to:)``) and
    /// the slot it drains (``keepUntilEnd(_:)``) under its own lock, and tells the transfer or
    /// gives the slot back itself when it ends. The registry then keeps no entry for it: no
    /// lock and no hash of the task to attach it, none to end it. Default: `false` (the
    /// registry routes it, and the transport reports its end there).
    var routesItself: Bool { get }
    /// For a task that ``routesItself``: stops its events and keeps `slot` until the task ends,
    /// then gives it back. `false` if the task has ended already (the caller gives it back).
    func keepUntilEnd(_ slot: SlotRelease) -> Bool
}

extension TransportTask {
    var canPauseReceiving: Bool { false }
    func resumeReceiving() {}
    func deliverEvents(to transfer: any ScheduledTransfer) {}
    func stopDeliveringEvents() {}
    var routesItself: Bool { false }
    func keepUntilEnd(_ slot: SlotRelease) -> Bool { false }
}

extension Transport {
    var keepsCredentialsAcrossOrigins: Bool { false }
    var honoursRateLimits: Bool { false }
    var choosesHTTPVersionPerRequest: Bool { false }
    var enforcesConnectTimeouts: Bool { false }
    var measuresTransfers: Bool { false }
    var configuredHeaders: [(name: String, value: String)] { [] }
    var ownsCurrentThread: Bool { false }
    var confirmsCancels: Bool { false }
    var redirectsFollowedPerTask: Int? { nil }
    func makeCallerDriver() -> (any CallerDriver)? { nil }
}

/// A blocking caller's thread, lent to the transport for one call.
///
/// Without one, a blocking call hands its transfer to the engine's own thread and sleeps until the
/// completion wakes it: two thread hand-offs a request, the largest part of a small request's wall
/// time once the instructions are few. With one, the calling thread runs the transfer's I/O
/// itself while it waits, and no other thread is involved unless something else (a deadline, a
/// retry timer, a freed concurrency slot) acts on the transfer; those reach the driver through
/// ``wake()``.
protocol CallerDriver: AnyObject, Sendable {
    /// Takes `task` (made for the driven call, not yet resumed): it will run on the caller's thread.
    func adopt(_ task: any TransportTask)
    /// Runs the adopted tasks on the calling thread until `isDone()` is true or `deadline` passes.
    func drive(until deadline: DispatchTime, isDone: () -> Bool)
    /// From any thread: `isDone` may have changed, so the driving thread looks again.
    func wake()
    /// The call is over (its one completion has been delivered): whatever of it is still running
    /// is stopped, and the driver's resources go back to the transport.
    func finish()
}

/// How a transport task ended, as the transport reports it to the transfer (with its metrics,
/// if it measured any). The engine has classified a failure already, in its own terms (a
/// `CURLcode` and libcurl's message, a `URLError`), into the error callers see.
enum TransportOutcome: Sendable {
    /// The response is complete (whatever its status).
    case completed
    /// The task failed. An idle or connect timeout is ``NetworkError/timedOut(_:)`` of kind
    /// ``TimeoutExceeded/Kind/idle`` or ``TimeoutExceeded/Kind/connect``; an engine's backstop
    /// that fires all the same (it should not) is ``NetworkError/transport(_:)`` with
    /// `URLError.timedOut`. The request's deadline is the transfer's alone.
    case failed(NetworkError)

    /// The error, or `nil` for a completed task.
    var error: NetworkError? {
        if case let .failed(error) = self { return error }
        return nil
    }
}

/// What one transport task is to keep besides Courier's own deadline (which the transfer
/// enforces): the request's options over the network's defaults, resolved once per transfer
/// (``Transfer``) and handed to the engine when each task is made — the one value through which
/// a per-request option reaches an engine.
///
/// The idle and connect timeouts are Courier's own limits, watched by the transfer on every
/// engine with fractional seconds (``StallWatch``); an engine is given them as well, rounded up
/// and a second later, as a backstop (FoundationNetworking takes whole seconds, libcurl's stall
/// limit too), except the connect timeout on an engine that keeps it exactly
/// (``Transport/enforcesConnectTimeouts``).
struct TaskOptions: Sendable, Equatable {
    /// No byte received or sent for this long ends the attempt with
    /// ``NetworkError/timedOut(_:)`` of kind ``TimeoutExceeded/Kind/idle``; `nil` for none.
    var idleTimeout: TimeInterval?
    /// No connection for this long ends the attempt with kind ``TimeoutExceeded/Kind/connect``;
    /// `nil` for none of its own (the idle timeout then covers connecting too).
    var connectTimeout: TimeInterval?
    /// The request's own rate limit, over the network's (only on a transport that
    /// ``Transport/honoursRateLimits``).
    var rateLimit: RateLimit?
    /// Whether the transport offers compressed codings and decodes them
    /// (``Network/decompressesResponses`` when the transfer was scheduled).
    var decompresses: Bool
    /// The request's own HTTP version (``TransferOptions/httpVersion``), over the network's;
    /// only on a transport that ``Transport/choosesHTTPVersionPerRequest``.
    var httpVersion: HTTPVersionPreference?

    init(idleTimeout: TimeInterval? = nil, connectTimeout: TimeInterval? = nil, rateLimit: RateLimit? = nil, decompresses: Bool = true) {
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
        self.rateLimit = rateLimit
        self.decompresses = decompresses
    }

    /// The backstop an engine is given for a limit Courier watches itself: rounded up to whole
    /// seconds and a second later, so that it never fires first, and at most
    /// ``RequestTimeout/transportLimit`` (FoundationNetworking traps past what an `Int` of
    /// milliseconds holds). `nil` for no limit.
    static func backstop(for limit: TimeInterval?) -> TimeInterval? {
        guard let limit, limit.isFinite, limit > 0 else { return nil }
        return min(limit.rounded(.up) + 1, RequestTimeout.transportLimit)
    }
}

/// What a transfer makes of a chunk of response body its transport task offers it.
enum ReceiveDecision {
    /// Taken.
    case accepted
    /// Not taken, for lack of room: the task keeps the chunk and offers it again after
    /// ``TransportTask/resumeReceiving()``. Only ever answered to a task that
    /// ``TransportTask/canPauseReceiving``.
    case refused
}
