import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the rest of the core sees of a transfer, whatever its body: the registry routes the
/// transport's events to it, the request queue starts it, a ``NetworkTask`` cancels it.
protocol ScheduledTransfer: AnyObject, Sendable {
    /// Whether starting it is heavy enough to keep off the scheduling thread.
    var startsOffThread: Bool { get }
    /// Sets the first attempt going.
    func submit()
    /// Starts an attempt in the slot the request queue just granted. Returns `false` when the
    /// transfer ended while it waited: the caller then takes the slot back.
    func start() -> Bool
    /// Ends the transfer early with `error` (cancel, deadline); does nothing once it has ended.
    func end(with error: NetworkError)

    var publicState: NetworkTask.State { get }
    var attemptCount: Int { get }

    // Transport events, one at a time per task: on the network's delegate queue (URLSession, the
    // stub) or on the curl loop's thread.
    /// The final response head of the current task (`body` empty).
    func didReceive(head: HTTPResponse)
    /// A chunk of the response body; a task that can pause may have it refused (see
    /// ``ReceiveDecision``). Transports that cannot pause ignore the answer.
    @discardableResult
    func didReceive(data: Data) -> ReceiveDecision
    /// The same, as bytes lent for the call only (see ``TransferBody/didReceive(bytes:)``), with
    /// the encoded bytes the transport has read of a body it decodes (`nil`: it does not count
    /// them), for the ``DecompressionGuard``.
    func didReceive(bytes: UnsafeRawBufferPointer, encodedBytes: Int64?) -> ReceiveDecision
    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The task is over: completed, or failed with the ``NetworkError`` its engine classified
    /// (a transport's own timeout is ``NetworkError/transport(_:)``, never the deadline's
    /// ``NetworkError/timedOut(_:)``). `metrics` are the transport's own (curl; URLSession on Apple
    /// platforms); without them the transfer measures what it can itself.
    func didComplete(_ outcome: TransportOutcome, metrics: TransferMetrics?)
    func didRejectAuthenticationChallenge()
    /// A redirect of the current attempt, `response` as the transport read it (the curl engine:
    /// fields in the order received; no `HTTPURLResponse` is made for it): the request to follow
    /// it with, or `nil` to stop and take the redirect response as the answer.
    func redirect(_ response: HTTPResponse, to proposed: WireRequest, from previous: WireRequest?) -> WireRequest?
}

extension ScheduledTransfer {
    /// Cancels the transfer: the completion receives ``NetworkError/cancelled`` at once.
    func cancel() {
        end(with: .cancelled)
    }
}
