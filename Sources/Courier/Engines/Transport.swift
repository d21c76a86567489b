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
protocol Transport: Sendable {
    func makeDataTask(with request: URLRequest) -> any TransportTask
    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask
    /// Whether a `GET` with a body goes out as it is (see ``MethodBodyCheck``).
    var sendsGETBodies: Bool { get }
    /// Whether a request's ``RateLimit`` is honoured; where not, a request with one fails
    /// before anything is sent. Default: `false`.
    var honoursRateLimits: Bool { get }
    /// Whether every task reports its ``TransferMetrics`` when it completes (curl), so that the
    /// transfer need not time it itself. Default: `false`.
    var measuresTransfers: Bool { get }
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

extension URLSessionTask: TransportTask {
    var hasCompleted: Bool { state == .completed || state == .canceling }
}

extension URLSession: Transport {
    /// Cancels the task in the background, a moment after its transfer ended.
    ///
    /// Never on the caller's thread: on Linux `URLSessionTask.cancel()` blocks its caller
    /// (milliseconds to seconds). And not at once: FoundationNetworking traps ("task not in the
    /// registry") when its cancel races the task's own end, which it reports on another thread.
    /// A task that ends within ``cancelDelay`` (any short response) is then never cancelled at
    /// all, which closes that window for everything but transfers that happen to end exactly as
    /// the delayed cancel lands. The caller is not kept waiting: its completion was delivered
    /// already, and bytes arriving meanwhile are dropped unread.
    func cancel(_ task: any TransportTask) {
        let task = UncheckedSendable(task)  // URLSessionTask is thread-safe; not annotated on Linux.
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.cancelDelay) {
            guard !task.value.hasCompleted else { return }
            task.value.cancel()
        }
    }

    /// How long after a transfer ends early its URLSession task is cancelled; see ``cancel(_:)``.
    static let cancelDelay: TimeInterval = 0.025

    /// URLSession fails such a task with "resource exceeds maximum size".
    var sendsGETBodies: Bool { false }

    func makeDataTask(with request: URLRequest) -> any TransportTask {
        dataTask(with: request)
    }

    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask {
        uploadTask(with: request, fromFile: file)
    }

    func invalidate() {
        finishTasksAndInvalidate()
    }
}
