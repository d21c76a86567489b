import Foundation

/// The bounded hand-over between a streamed response (``StreamBody``, on the transport's thread)
/// and the one consumer of it: callbacks (``StreamCallbacks``), an async sequence
/// (``ResponseBodyStream``) or a blocked caller (`streamSynchronously`).
///
/// It holds the accepted response head, the body chunks not taken yet, and the transfer's
/// result, which comes out last. At most ``budget`` bytes of chunks wait here: a chunk that would
/// go past it is refused, and the producer is called back once the consumer has brought the
/// buffer down to half the budget (hysteresis, so that a slow consumer does not pause and
/// resume the transfer for every chunk). That refusal is what slows the transfer down.
///
/// Both sides wait by leaving a one-shot closure (`whenRoom`, `whenReady`), called after the lock
/// is released, so each convention waits its own way: libcurl unpauses, a semaphore is
/// signalled, a continuation resumed, a block queued.
final class StreamBuffer: Sendable {
    /// The budget of every stream: 2 MiB of body the consumer has not taken yet.
    static let defaultBudget = 2 << 20

    /// What the consumer takes, in this order: the head, the chunks, the end.
    enum Event: Sendable {
        /// The accepted response head (status and headers, empty body).
        case head(HTTPResponse)
        /// The next chunk of the body.
        case chunk(Data)
        /// The transfer's result; taken again by every later call.
        case end(Result<HTTPResponse, any Error>)
    }

    private struct State {
        var head: HTTPResponse?
        /// Chunks not taken yet, from index `first` on (taken ones are emptied, and dropped in
        /// batches, so taking one is O(1)).
        var chunks: [Data] = []
        var first = 0
        var bytes = 0
        var result: Result<HTTPResponse, any Error>?
        /// The transfer has ended: chunks offered from now on are dropped.
        var closed = false
        var whenRoom: (@Sendable () -> Void)?
        var whenReady: (@Sendable () -> Void)?

        mutating func takeWhenRoom() -> (@Sendable () -> Void)? {
            defer { whenRoom = nil }
            return whenRoom
        }

        mutating func takeWhenReady() -> (@Sendable () -> Void)? {
            defer { whenReady = nil }
            return whenReady
        }
    }

    /// Bytes of body that may wait for the consumer.
    let budget: Int
    private let state = Locked(State())

    init(budget: Int = StreamBuffer.defaultBudget) {
        self.budget = budget
    }

    // MARK: - Producer (the transport's thread)

    /// The accepted response head, handed out before any chunk.
    func deliver(head: HTTPResponse) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closed else { return nil }
            state.head = head
            return state.takeWhenReady()
        }
        wake?()
    }

    /// Offers a chunk of the body. Returns `true` when it was taken (or dropped: the stream has
    /// ended); `false` when there is no room for it, in which case `whenRoom` is called once,
    /// as soon as there is (or the stream ends), and the same chunk must be offered again.
    /// A chunk is always taken when nothing waits, however large.
    func offer(_ chunk: Data, whenRoom: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            if state.closed { return (true, nil) }
            if state.bytes > 0, state.bytes + chunk.count > budget {
                state.whenRoom = whenRoom
                return (false, nil)
            }
            state.chunks.append(chunk)
            state.bytes += chunk.count
            return (true, state.takeWhenReady())
        }
        wake?()
        return accepted
    }

    /// The transfer has ended (in any way): chunks offered later are dropped, and a producer
    /// waiting for room is let go.
    func closeProducer() {
        let room = state.withLock { state -> (@Sendable () -> Void)? in
            state.closed = true
            return state.takeWhenRoom()
        }
        room?()
    }

    /// The transfer's one result, handed out after the chunks already here.
    func end(with result: Result<HTTPResponse, any Error>) {
        let (room, wake) = state.withLock { state -> ((@Sendable () -> Void)?, (@Sendable () -> Void)?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            state.closed = true
            return (state.takeWhenRoom(), state.takeWhenReady())
        }
        room?()
        wake?()
    }

    // MARK: - Consumer

    /// The next event, or `nil` when there is none yet: then `whenReady` is called once, when
    /// there is (it replaces the closure an earlier call left).
    func take(whenReady: @escaping @Sendable () -> Void) -> Event? {
        let budget = self.budget
        let (event, room) = state.withLock { state -> (Event?, (@Sendable () -> Void)?) in
            if let head = state.head {
                state.head = nil
                return (.head(head), nil)
            }
            if state.first < state.chunks.count {
                let chunk = state.chunks[state.first]
                state.chunks[state.first] = Data()
                state.first += 1
                if state.first == state.chunks.count {
                    state.chunks.removeAll(keepingCapacity: true)
                    state.first = 0
                } else if state.first >= 64 {
                    state.chunks.removeFirst(state.first)
                    state.first = 0
                }
                state.bytes -= chunk.count
                return (.chunk(chunk), state.bytes <= budget / 2 ? state.takeWhenRoom() : nil)
            }
            if let result = state.result { return (.end(result), nil) }
            state.whenReady = whenReady
            return (nil, nil)
        }
        room?()
        return event
    }

    /// The next event, suspending until there is one. Never throws and never hangs past the
    /// transfer's end, which always comes (cancel the transfer to hasten it).
    func next() async -> Event {
        while true {
            let event = await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                if let event = take(whenReady: { continuation.resume(returning: nil) }) {
                    continuation.resume(returning: event)
                }
            }
            if let event { return event }
        }
    }
}
