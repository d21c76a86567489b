import Foundation

/// The session's delegate queue, with backpressure: at most ``limit`` callbacks wait at once.
///
/// URLSession on Linux hands every delegate callback to the delegate queue with
/// `addOperation`, from its own work thread, and never waits for the delegate: when chunks arrive
/// faster than they are consumed (loopback, a slow disk, a busy machine) they pile up in memory
/// without bound (measured: hundreds of MB). Blocking in `addOperation` once ``limit`` callbacks
/// are waiting stops that thread, so libcurl stops reading the socket and TCP slows the sender:
/// memory stays bounded at roughly `limit` chunks (16 KB each), whatever the speed.
///
/// Safe because nothing that runs on the delegate queue ever waits for URLSession's work
/// thread: Courier's callbacks only record and dispatch, and `URLSessionTask.cancel()` (which does
/// wait for it) runs on a separate queue. A callback added from the delegate queue itself is
/// never blocked.
final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {  // OperationQueue is not annotated; own state is a semaphore and lets.
    /// Callbacks allowed to wait at once: about 4 MB of 16 KB chunks.
    static let limit = 256

    private let slots = DispatchSemaphore(value: BoundedDelegateQueue.limit)
    private let underlying: DispatchQueue

    init(underlying: DispatchQueue) {
        self.underlying = underlying
        super.init()
        underlyingQueue = underlying
        maxConcurrentOperationCount = 1
        name = "courier.session-delegate"
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        // Never block the delegate queue on itself: that would be a deadlock.
        let blocking = DispatchQueue.getSpecific(key: NetworkCore.internalQueueKey) == nil
        if blocking { slots.wait() }
        super.addOperation { [slots] in
            block()
            if blocking { slots.signal() }
        }
    }
}
