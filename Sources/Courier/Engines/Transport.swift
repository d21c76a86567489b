import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transfer's bytes travel through: the Network's URLSession, libcurl (``CurlTransport``),
/// or a stub that answers without a network (`Network(stub:)`, see ``StubServer``).
///
/// Whichever it is, the events reach the transfer the same way, through the
/// ``TransferRegistry``, one at a time per task: on the Network's delegate queue (URLSession,
/// stub) or on the curl loop thread. So the stub exercises all of Courier's own code.
///
/// What the core asks a transport: a task for a request (with the ``TransportLimits`` it is to
/// keep), a cancel, and a few capabilities. What the transport hands back, through the
/// registry: the head, body chunks, bytes sent, redirects, and one ``TransportOutcome`` with its
/// metrics. Each engine classifies its own failures into the ``NetworkError`` callers see (see
/// `CurlFailure`, ``URLSessionFailure``): nothing of an engine's codes or messages crosses the seam.
protocol Transport: Sendable {
    func makeDataTask(with request: URLRequest, limits: TransportLimits) -> any TransportTask
    func makeUploadTask(with request: URLRequest, fromFile file: URL, limits: TransportLimits) -> any TransportTask
    /// Whether a `GET` with a body goes out as it is (see ``MethodBodyCheck``).
    var sendsGETBodies: Bool { get }
    /// Whether a request's ``RateLimit`` is honoured; where not, a request with one fails
    /// before anything is sent. Default: `false`.
    var honoursRateLimits: Bool { get }
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
    /// The request's own rate limit, set before ``resume()`` (only on a transport that
    /// ``Transport/honoursRateLimits``). Default: ignored.
    func limitRate(to limit: RateLimit)
}

extension TransportTask {
    var canPauseReceiving: Bool { false }
    func resumeReceiving() {}
    func limitRate(to limit: RateLimit) {}
}

extension Transport {
    var honoursRateLimits: Bool { false }
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
    /// The task failed; a transport's own idle or connect timeout is
    /// ``NetworkError/transport(_:)`` with `URLError.timedOut`, never ``NetworkError/timedOut(_:)``
    /// (the request's deadline, which only the transfer enforces).
    case failed(NetworkError)

    /// The error, or `nil` for a completed task.
    var error: NetworkError? {
        if case let .failed(error) = self { return error }
        return nil
    }
}

/// The limits a transport task keeps besides Courier's own deadline (which the transfer
/// enforces): backstops against a connection that stalls, handed to the transport when the task
/// is made. Each engine applies them as its API allows (see Courier.docc/Engines.md).
struct TransportLimits: Sendable, Equatable {
    /// No byte for this long ends the task with `URLError.timedOut` (an idle timeout); `nil`
    /// for the engine's default.
    var idleMilliseconds: Int?

    init(idleMilliseconds: Int? = nil) {
        self.idleMilliseconds = idleMilliseconds
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
