import Foundation

/// One event of a transfer, for async callers: progress updates, then the output.
public enum TransferEvent<Output: Sendable>: Sendable {
    /// Bytes moved so far.
    case progress(TransferProgress)
    /// The transfer ended successfully with this output; the stream ends after it.
    case finished(Output)
}

extension Network {
    /// Every event of one request, for async callers: progress updates, then
    /// ``TransferEvent/finished(_:)`` with the output. The stream throws the request's error
    /// instead. Ending the iteration early (or cancelling the consuming `Task`) cancels the request.
    /// The output must be `Sendable` here, as it is read by whichever task consumes the stream.
    ///
    /// ```swift
    /// for try await event in network.events(for: request) {
    ///     switch event {
    ///     case .progress(let progress): print(progress.fractionCompleted ?? 0)
    ///     case .finished(let data): print("got \(data.count) bytes")
    ///     }
    /// }
    /// ```
    public func events<R: NetworkRequest>(for request: R) -> AsyncThrowingStream<TransferEvent<R.Output>, any Error>
        where R.Output: Sendable {
        AsyncThrowingStream { continuation in
            // Progress and completion share the transfer's serial handler queue, so events are
            // yielded in order and `.finished` comes last.
            let task = core.schedule(request, target: .immediate, progress: { continuation.yield(.progress($0)) }) { result in
                switch result {
                case let .success(output):
                    continuation.yield(.finished(output))
                    continuation.finish()
                case let .failure(error):
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
