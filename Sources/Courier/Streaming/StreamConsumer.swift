import Foundation

/// The consumer of a ``StreamBuffer`` for async/await: what ``ResponseBodyStream`` and its
/// iterators share. Cancels the transfer when the calling `Task` is cancelled while waiting, and
/// when the last reference goes before the end of the body (the sequence was dropped).
final class StreamConsumer: Sendable {
    private let buffer: StreamBuffer
    private let task: NetworkTask
    /// The end has been taken: nothing to cancel, and every later call returns `nil`.
    private let ended = Locked(false)

    init(buffer: StreamBuffer, task: NetworkTask) {
        self.buffer = buffer
        self.task = task
    }

    deinit {
        if !ended.current { task.cancel() }
    }

    /// Waits for the head. Throws the transfer's error (or `CancellationError` when the calling
    /// `Task` was cancelled).
    func head() async throws -> HTTPResponse {
        while true {
            switch await nextEvent() {
            case let .head(head):
                if Task.isCancelled {
                    task.cancel()
                    throw CancellationError()
                }
                return head
            case .chunk:
                continue   // never before the head
            case let .end(result):
                ended.withLock { $0 = true }
                return try outcome(of: result)   // a success always comes after its head
            }
        }
    }

    /// The next chunk of the body; `nil` at its end. Throws the transfer's error (or
    /// `CancellationError` when the calling `Task` was cancelled).
    func nextChunk() async throws -> Data? {
        guard !ended.current else { return nil }
        while true {
            switch await nextEvent() {
            case .head:
                continue
            case let .chunk(chunk):
                if task.isCancelled { continue }   // a cancel drops what was not delivered yet
                return chunk
            case let .end(result):
                ended.withLock { $0 = true }
                _ = try outcome(of: result)
                return nil
            }
        }
    }

    /// The consumer gave up on the body (a line past its limit): ends the transfer with `error`,
    /// so no more bytes are read, and returns the error to throw. Later calls return `nil`.
    func fail(with error: NetworkError) -> NetworkError {
        ended.withLock { $0 = true }
        task.transfer.end(with: error)
        return error
    }

    private func nextEvent() async -> StreamBuffer.Event {
        let task = self.task
        return await withTaskCancellationHandler {
            await buffer.next()
        } onCancel: {
            task.cancel()
        }
    }

    /// The response of a success; the error of a failure, as `CancellationError` when the
    /// calling `Task` was cancelled (as ``Network/response(for:progress:)`` does).
    private func outcome(of result: Result<HTTPResponse, any Error>) throws -> HTTPResponse {
        switch result {
        case let .success(response):
            return response
        case let .failure(error):
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }
}
