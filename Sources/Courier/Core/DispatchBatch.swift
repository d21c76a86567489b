import Dispatch

/// Completions handed to callers' queues in bursts: when one turn of a curl loop ends several
/// transfers, the completions of all but the last are held, and queued back to back just before
/// the last one's (``holding(_:)``, ``flush()``).
///
/// Why: with many requests in flight, one turn often ends several transfers, each some
/// microseconds of work after the last. Queued as each ended, the first woke a worker thread for
/// the caller's queue, which ran it and parked again before the next arrived: nearly a thread
/// wake per completion (measured: 0.9 a request with 32 in flight, callback convention). Queued
/// back to back, one wake serves them all. Each is still its own `async`, so a concurrent queue
/// still runs them concurrently, and a serial one in the order the transfers ended. The delay is
/// the other transfers' completion work, not a wait; the last transfer of a turn, and so the only
/// one, is delivered exactly as before (holding it too, even for the few microseconds of its own
/// bookkeeping, made sequential callback requests measurably slower).
///
/// Only the thread inside ``holding(_:)`` holds work back; on every other thread, and outside it,
/// ``async(_:on:)`` is `DispatchQueue.async`.
final class DispatchBatch {
    /// Touched by the owner's thread only, and no access spans a call back into the batch: so
    /// unchecked for overlapping access (Swift's run-time check, twice a transfer, could not fail).
    @exclusivity(unchecked) private var held: [(queue: DispatchQueue, work: @Sendable () -> Void)] = []

    /// The batch of the thread inside ``holding(_:)``.
    private static let slot = ThreadSlot()

    /// Runs `body`, holding what the calling thread queues through ``async(_:on:)`` meanwhile
    /// until the next ``flush()``. Only the thread that owns the batch calls this.
    func holding<T>(_ body: () -> T) -> T {
        Self.slot.binding(self, body)
    }

    /// `queue.async(execute: work)`, or held by the calling thread's batch while it holds.
    static func async(_ work: @escaping @Sendable () -> Void, on queue: DispatchQueue) {
        guard let batch = slot.current(DispatchBatch.self) else { return queue.async(execute: work) }
        batch.held.append((queue, work))
    }

    /// Queues what is held, in the order it came.
    func flush() {
        guard !held.isEmpty else { return }
        // Queued work may start at once on another thread, but never touches this batch, which
        // only its owner's thread reads; emptied in place, keeping its storage for the next turn.
        for item in held { item.queue.async(execute: item.work) }
        held.removeAll(keepingCapacity: true)
    }
}
