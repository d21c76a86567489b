import Foundation

/// The consumer of a ``StreamBuffer`` for the callback convention: runs `onResponse`, each
/// `onData` and the completion, in that order, one at a time, on a serial queue of the stream's
/// own (targeting the caller's queue, as ``Delivery`` does for progress).
///
/// It takes the next event only when the previous handler has returned, so a slow `onData` is
/// what keeps chunks in the buffer, and the buffer's budget then pauses the transfer.
final class StreamCallbacks: Sendable {
    /// Events handled per turn on the queue, so that a fast stream does not hold a shared
    /// target queue (`.main`) for long.
    private static var batch: Int { 64 }

    private let buffer: StreamBuffer
    private let queue: DispatchQueue
    private let onResponse: @Sendable (HTTPResponse) -> Void
    private let onData: @Sendable (Data) -> Void
    private let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
    /// Set once the transfer exists; a cancelled one gets no more chunks.
    private let task = Locked<NetworkTask?>(nil)

    init(buffer: StreamBuffer, queue: DispatchQueue, onResponse: @escaping @Sendable (HTTPResponse) -> Void,
         onData: @escaping @Sendable (Data) -> Void, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) {
        self.buffer = buffer
        self.queue = queue
        self.onResponse = onResponse
        self.onData = onData
        self.completion = completion
    }

    /// Starts delivering the events of `task`'s transfer.
    func start(_ task: NetworkTask) {
        self.task.withLock { $0 = task }
        queue.async { [self] in drain() }
    }

    /// Runs the handlers of the events there are; when there are none, asks the buffer to call
    /// back when there is one. Only ever one turn at a time: the next is queued either here or
    /// by the buffer, never by both.
    private func drain() {
        for _ in 0..<Self.batch {
            guard let event = buffer.take(whenReady: { [self] in queue.async { self.drain() } }) else { return }
            switch event {
            case let .head(head):
                onResponse(head)
            case let .chunk(chunk):
                // A cancel drops what was not delivered yet.
                if task.withLock({ $0?.isCancelled }) != true { onData(chunk) }
            case let .end(result):
                completion(result)
                return
            }
        }
        queue.async { [self] in drain() }
    }
}
