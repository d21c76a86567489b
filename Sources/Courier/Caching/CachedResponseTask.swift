import Foundation

/// The "transport task" of an attempt the cache answers: no connection, the stored head and
/// body delivered to the transfer as a transport delivers them (on the network's delegate
/// queue, head, body, end), so that the transfer, its body and its observers treat a cached
/// response as any other.
///
/// A cancel before the delivery stops it, and is confirmed at once (as the stub's are), so a
/// slot the transfer kept for the task comes back.
final class CachedResponseTask: TransportTask, Sendable {
    private struct State {
        var transfer: (any ScheduledTransfer)?
        var ended = false
    }

    private let head: HTTPResponse
    private let body: Data
    private let registry: TransferRegistry
    private let queue: DispatchQueue
    private let state = Locked(State())

    init(head: HTTPResponse, body: Data, registry: TransferRegistry, queue: DispatchQueue) {
        self.head = head
        self.body = body
        self.registry = registry
        self.queue = queue
    }

    func deliverEvents(to transfer: any ScheduledTransfer) {
        state.withLock { $0.transfer = transfer }
    }

    func stopDeliveringEvents() {
        state.withLock { $0.transfer = nil }
    }

    private var listener: (any ScheduledTransfer)? {
        state.withLock { $0.ended ? nil : $0.transfer }
    }

    func resume() {
        let started = DispatchTime.now()
        queue.async { [self] in
            listener?.didReceive(head: head)
            if !body.isEmpty { listener?.didReceive(data: body) }
            let first = state.withLock { state -> Bool in
                defer { state.ended = true }
                return !state.ended
            }
            // Metrics of its own, as every response of the curl engine has: how long the answer
            // took, with no connection, name lookup or bytes on the wire.
            let total = TimeInterval(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            if first { registry.complete(self, outcome: .completed, metrics: TransferMetrics(total: total)) }
        }
    }

    func cancel() {
        state.withLock { $0.ended = true }
        registry.taskDidComplete(self)
    }

    /// Ends the task with `error` unless it has ended already (``Transport/fail(_:with:)``).
    func fail(with error: NetworkError) {
        queue.async { [self] in
            let first = state.withLock { state -> Bool in
                defer { state.ended = true }
                return !state.ended
            }
            if first { registry.complete(self, outcome: .failed(error)) }
        }
    }

    var hasCompleted: Bool { state.withLock { $0.ended } }
}
