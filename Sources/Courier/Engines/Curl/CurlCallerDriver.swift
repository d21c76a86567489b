import Dispatch

/// A blocking call's own thread, running its transfer on a loop of its own (``CallerDriver``).
///
/// Handing a request to the `Network`'s loop thread and sleeping until the completion wakes the
/// caller costs two thread hand-offs a request: on a loaded machine, more wall time than
/// Courier's own instructions. A blocking caller has a thread with nothing else to do, so it
/// drives a ``CurlLoop`` of its own instead: the transfer's libcurl calls, callbacks and
/// completion all happen on the caller's thread, and nothing wakes another thread unless another
/// thread acts (a deadline, a retry timer, a freed concurrency slot), through the loop's inbox.
///
/// The loops are pooled by ``CurlTransport``, so that consecutive blocking calls from a thread
/// keep their connection; each pooled loop has its own connection cache.
final class CurlCallerDriver: CallerDriver {
    private let loop: CurlLoop
    private let transport: CurlTransport

    init(loop: CurlLoop, transport: CurlTransport) {
        self.loop = loop
        self.transport = transport
    }

    func adopt(_ task: any TransportTask) {
        (task as? CurlTask)?.loop = loop
    }

    func drive(until deadline: DispatchTime, isDone: () -> Bool) {
        loop.drive(until: deadline, isDone: isDone)
    }

    func wake() {
        loop.wake()
    }

    func finish() {
        loop.abandonAll()
        transport.giveBack(loop)
    }
}
