import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transfer does with the response: keep it in memory (``MemoryBody``), write it to a
/// file (``DownloadBody``), or hand it to a consumer as it arrives (``StreamBody``).
///
/// A body is a strategy the ``Transfer`` drives. It makes the transport task for an attempt,
/// consumes the response events (one at a time, where the engine delivers them: its curl loop
/// thread or the URLSession delegate queue) and says what they mean; it never touches the
/// lifecycle or the slots, and delivers its one result only through the ``Delivery`` the transfer
/// hands it once the transfer has claimed its end. So a new kind of body, or a new transport
/// under an existing one, changes nothing else.
///
/// Whatever a body calls of the request's own code (`validate`, `output`, `convertError`), it
/// calls outside any lock of its own.
protocol TransferBody: AnyObject, Sendable {
    /// What a successful transfer produces. Not necessarily `Sendable` (a request's own
    /// ``NetworkRequest/Output`` may not be): it is handed on, never shared (see ``Delivery``).
    associatedtype Output

    /// The transfer's one completion. Kept by the body, the only part of a transfer that knows
    /// the output's type: so the ``Transfer`` is not generic, and the end of a request looks no
    /// generic type up at run time on its way through it (Performance.md).
    var completion: @Sendable (Result<Output, any Error>) -> Void { get }

    /// Whether making the task is heavy (a multipart body to write to disk), so that it must not
    /// run on the scheduling thread.
    var startsOffThread: Bool { get }
    /// Whether the request body is uploaded from a file (`WireRequest.body` is then empty,
    /// though there is a body to repeat on a `307`/`308`).
    var uploadsFromFile: Bool { get }

    /// Whether a chunk may be kept waiting (a stream whose consumer is behind): the transfer
    /// then does not count that wait against the idle timeout (``StallWatch``). Default: `false`.
    var mayHoldChunks: Bool { get }

    /// Whether the network's ``HTTPCache`` may answer the request and keep its response: a body
    /// kept in memory. Downloads to disk and streams always go to the server. Default: `false`.
    var usesCache: Bool { get }

    /// Makes the transport task (not resumed) for an attempt, or for a restart of one, with its `options`.
    func makeTask(in transport: any Transport, for request: WireRequest, options: TaskOptions) throws -> any TransportTask

    /// The response head of the current task (its `body` is empty).
    func didReceive(head: HTTPResponse) -> BodyStep
    /// A chunk of the response body. A body that cannot take it now (a stream whose consumer
    /// is behind) says so with ``BodyStep/refused``, and only to a task that can pause.
    func didReceive(data: Data) -> BodyStep
    /// The same, as bytes lent for the call only (libcurl's buffer, reused afterwards): a body
    /// that copies them anyway (into memory, into a file) takes them from here and saves the
    /// `Data` a chunk would cost. By default, ``didReceive(data:)`` with a copy.
    func didReceive(bytes: UnsafeRawBufferPointer) -> BodyStep
    /// Request-body bytes sent so far.
    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) -> BodyStep
    /// Courier refused the server's authentication challenge: the task then ends "cancelled",
    /// but the response it already holds is the real outcome.
    func didRejectAuthenticationChallenge()
    /// The task is over: what the attempt produced. `error` is the transport's failure, as its
    /// engine classified it; `metrics` are the transfer's (an `error` carries them already); every complete response the body hands on carries them too.
    /// `redirectLimitHit` is the redirect the attempt refused to follow because of
    /// ``Network/maximumRedirects``, if any.
    func didComplete(error: NetworkError?, metrics: TransferMetrics?, redirectLimitHit: HTTPResponse?) -> BodyCompletion
    /// The attempt goes on with a new task (a redirect Courier follows itself): forget what the
    /// last task received.
    func reset()

    /// The transfer ended without success: close whatever is open (keeping what can be resumed),
    /// then call `then`, which delivers the failure. May hop off the calling thread.
    func abandon(then: @escaping @Sendable () -> Void)
    /// The transfer has ended, in any way, and before its completion runs: release what it held
    /// for its whole life (temporary files). Called once.
    func release()
    /// The error the caller receives for `error` (the request's `convertError`).
    func convert(_ error: NetworkError, response: HTTPResponse?) -> any Error
}

extension TransferBody {
    var mayHoldChunks: Bool { false }
    var usesCache: Bool { false }

    /// Delivers `failure` as the transfer's one result.
    func deliver(failure: any Error, through delivery: Delivery) {
        delivery.deliver(.failure(failure), to: completion)
    }

    func didReceive(bytes: UnsafeRawBufferPointer) -> BodyStep {
        didReceive(data: Data(copying: bytes))
    }
}

/// What a body reports after an event: progress to show, a response for the observers, or a
/// reason to end the transfer at once.
struct BodyStep {
    var progress: TransferProgress?
    /// Progress that must go out even inside the throttle interval (the first or last event).
    var forceProgress = false
    /// A response head the observers are told about.
    var observed: HTTPResponse?
    /// Runs once the observers have heard of ``observed``: a stream hands its head to its
    /// consumer only then, so that no observer learns of a response after the caller's own
    /// code has acted on it (or after a blocking stream has returned).
    var afterObservers: (@Sendable () -> Void)?
    /// The transfer cannot go on (too large, disk full): it ends with this error.
    var abort: NetworkError?
    /// The chunk was not taken (flow control): the transport task keeps it and offers it again
    /// once the body calls ``TransportTask/resumeReceiving()``. See ``ReceiveDecision``.
    var refused = false

    static let proceed = BodyStep()
}

/// What one attempt produced, and what to tell on the way.
struct BodyCompletion {
    var outcome: AttemptOutcome
    /// The final progress event.
    var progress: TransferProgress?
    /// The complete response, for the observers.
    var observed: HTTPResponse?
}

/// The meaning of an attempt's end.
enum AttemptOutcome {
    /// Accepted. `commit` runs once the transfer has claimed its end (a file is moved into place
    /// only then, so a cancel that wins the race never leaves one behind, and an output is
    /// decoded only then, so a cancel that wins spares the work) and delivers the result through
    /// the transfer's ``Delivery`` to the body's completion.
    case accepted(commit: @Sendable (Delivery) -> Void)
    /// Not decided yet: `judge` runs the request's own `validate` and `output` and says. A body
    /// larger than ``inlineJudgingLimit`` bytes is judged on the work queue, so that decoding it
    /// never holds up other transfers' callbacks.
    case judge(bodySize: Int, @Sendable () -> AttemptOutcome)
    /// Failed. When `retryable`, the retry policy decides whether to go again; otherwise the
    /// transfer fails at once (bytes already written to a device cannot be sent again).
    case failed(NetworkError, response: HTTPResponse?, retryable: Bool = true)
    /// Failed with an error of the request's own making: final, delivered as it is.
    case rejected(any Error)
    /// The server refused to resume: start the same attempt over from byte 0.
    case startOver

    /// Bodies up to this size are judged where the engine delivered them: a hop would cost more.
    static var inlineJudgingLimit: Int { 64 << 10 }
}
