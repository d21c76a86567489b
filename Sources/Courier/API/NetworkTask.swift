/// A handle on one scheduled request: cancel it, or ask how far it has got.
///
/// Returned by ``Network/schedule(_:callbackQueue:progress:completion:)``. Keeping it is optional:
/// the request runs to its end whether or not the handle is kept.
public final class NetworkTask: Sendable, Hashable {
    /// Where a request is in its life.
    public enum State: Sendable, Hashable {
        /// Waiting for a free slot (see ``Network/maximumConcurrentRequests``).
        case queued
        /// Sending or receiving.
        case running
        /// Ended with a result, successful or not (its completion has been or is being delivered).
        case finished
        /// Ended by ``NetworkTask/cancel()``.
        case cancelled
    }

    let transfer: any ScheduledTransfer

    init(_ transfer: any ScheduledTransfer) {
        self.transfer = transfer
    }

    /// Cancels the request. Returns at once, whatever the transfer is doing: the completion then
    /// receives ``NetworkError/cancelled`` (passed through the request's `convertError`), bytes
    /// still arriving are dropped, and a request still queued never starts. Cancelling a request
    /// that has already ended does nothing.
    public func cancel() {
        transfer.cancel()
    }

    /// Where the request is in its life.
    public var state: State { transfer.publicState }

    /// How many attempts have been started so far (retries included). After a failure this
    /// tells how many attempts the reported error is the last of.
    public var attemptCount: Int { transfer.attemptCount }

    /// Whether the request was cancelled.
    public var isCancelled: Bool { state == .cancelled }

    /// Tasks are equal when they are the same handle.
    public static func == (lhs: NetworkTask, rhs: NetworkTask) -> Bool {
        lhs === rhs
    }

    /// Hashes the handle's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
