import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Completions handed to callers' queues in bursts: while a curl loop thread runs one turn, the
/// completions it delivers are held, and queued back to back once the last transfer that ended
/// in that turn has delivered its own (``flush()``), or when the turn ends.
///
/// Why: with many requests in flight, one turn often ends several transfers, each some
/// microseconds of work after the last. Queued as each ended, the first woke a worker thread for
/// the caller's queue, which ran it and parked again before the next arrived: nearly a thread
/// wake per completion (measured: 0.9 a request with 32 in flight, callback convention). Queued
/// back to back, one wake serves them all. Each is still its own `async`, so a concurrent queue
/// still runs them concurrently, and a serial one in the order the transfers ended. The delay is
/// the other transfers' completion work, not a wait; a turn that ends one transfer delivers it
/// exactly when it did before.
///
/// Only the thread inside ``collecting(_:)`` holds work back; on every other thread
/// ``async(_:on:)`` is `DispatchQueue.async`.
final class DispatchBatch {
    private var held: [(queue: DispatchQueue, work: @Sendable () -> Void)] = []

    /// The thread's batch, unretained: ``collecting(_:)`` keeps it alive while it is set.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "pthread_key_create failed (\(created)): no thread-specific slot left")
        return key
    }()

    /// Runs `body`; what the calling thread queues through ``async(_:on:)`` meanwhile is queued
    /// when `body` returns, in the same order. Only the thread that owns the batch calls this.
    func collecting<T>(_ body: () -> T) -> T {
        let outer = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        let result = body()
        pthread_setspecific(Self.key, outer)
        flush()
        return result
    }

    /// `queue.async(execute: work)`, or at the end of the calling thread's batch if it collects one.
    static func async(_ work: @escaping @Sendable () -> Void, on queue: DispatchQueue) {
        guard let batch = pthread_getspecific(key) else { return queue.async(execute: work) }
        Unmanaged<DispatchBatch>.fromOpaque(batch).takeUnretainedValue().held.append((queue, work))
    }

    /// Queues what is held now, in order: the caller knows no more is coming soon.
    func flush() {
        guard !held.isEmpty else { return }
        // Queued work may start at once on another thread, but never touches this batch, which
        // only its own thread reads; emptied in place, keeping its storage for the next turn.
        for item in held { item.queue.async(execute: item.work) }
        held.removeAll(keepingCapacity: true)
    }
}
