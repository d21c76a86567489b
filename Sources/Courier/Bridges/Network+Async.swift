import Foundation

extension Network {
    /// Runs a request and returns its output; a thin bridge over the same core as
    /// ``schedule(_:callbackQueue:progress:completion:)``.
    ///
    /// Cancelling the calling `Task` cancels the request at once and throws `CancellationError`.
    ///
    /// - Parameters:
    ///   - request: What to send and how to read the answer.
    ///   - progress: Progress events, in order, on a private serial queue.
    /// - Returns: The request's output.
    /// - Throws: A ``NetworkError`` (or the request's converted error), or `CancellationError`.
    public func response<R: NetworkRequest>(
        for request: R,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> R.Output {
        try Task.checkCancellation()
        let handle = CancellationHandle()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<R.Output, any Error>, Never>) in
                let task = core.schedule(request, target: .immediate, progress: progress) { continuation.resume(returning: $0) }
                handle.attach(task)
            }
        } onCancel: {
            handle.cancel()
        }
        if case .failure = result, Task.isCancelled { throw CancellationError() }
        return try result.get()
    }
}

/// Links a Swift `Task`'s cancellation to a ``NetworkTask`` that may not exist yet when the
/// cancellation arrives.
final class CancellationHandle: Sendable {
    private let state = Locked<(task: NetworkTask?, cancelled: Bool)>((nil, false))

    func attach(_ task: NetworkTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> NetworkTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
