import Foundation

extension Network {
    /// Runs a request and blocks the calling thread until it ends; for scripts, command-line
    /// tools and code that cannot be asynchronous.
    ///
    /// Safe to call from any thread: the main thread (even when the callback queue is `.main`),
    /// a global queue, a completion handler of this same network, or a Swift `Task`. The wait
    /// never depends on the callback queue or on Swift concurrency's thread pool: the result is
    /// handed over by whichever Courier thread finishes the request. When called on one of
    /// Courier's own internal queues, where the request could never run, it returns
    /// ``NetworkError/wouldDeadlock(_:)`` at once instead of hanging.
    ///
    /// On the curl engine the calling thread runs the transfer itself while it waits, on a
    /// connection of its own, instead of waking another thread and sleeping (see
    /// <doc:Threading#A-blocking-call-runs-its-own-transfer-curl-engine>).
    ///
    /// - Parameters:
    ///   - request: What to send and how to read the answer.
    ///   - timeout: How long to wait in all, time in the queue included; when it passes the
    ///     request is cancelled and the result is ``NetworkError/timedOut(_:)``. `nil` (the default)
    ///     and `.infinity` wait as long as the request's own deadline allows. Any value is
    ///     accepted: a negative one or NaN is taken as 0, and a wait that is over before the
    ///     request starts (0, or too short to measure) returns ``NetworkError/timedOut(_:)`` without
    ///     sending anything.
    ///   - progress: Progress events, on a private serial queue (never the callback queue).
    /// - Returns: The output, or the error.
    @preconcurrency
    public func scheduleSynchronously<R: NetworkRequest>(
        _ request: R,
        timeout: TimeInterval? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<R.Output, any Error> {
        scheduleSynchronously(request, timeout: timeout, cancellation: nil, progress: progress)
    }

    /// ``scheduleSynchronously(_:timeout:progress:)`` that `cancellation` can end from another
    /// thread (or a signal: ``CancellationToken/interrupt``); the result is then
    /// ``NetworkError/cancelled``.
    @preconcurrency
    public func scheduleSynchronously<R: NetworkRequest>(
        _ request: R,
        timeout: TimeInterval? = nil,
        cancellation: CancellationToken?,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<R.Output, any Error> {
        core.runBlocking(timeout: timeout, cancellation: cancellation, failure: { request.convertError($0, response: nil) }) { target, completion in
            core.schedule(request, target: target, progress: progress, completion: completion)
        }
    }
}

extension Network {
    /// Downloads to a file and blocks until done; the blocking form of
    /// ``download(_:to:options:callbackQueue:progress:completion:)``, with the guarantees of
    /// ``scheduleSynchronously(_:timeout:progress:)``. A `timeout` that passes keeps the partial
    /// file, so calling again resumes.
    @preconcurrency
    public func downloadSynchronously<R: NetworkRequest>(
        _ request: R,
        to destination: URL,
        options: DownloadOptions = [],
        timeout: TimeInterval? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<URL, any Error> {
        downloadSynchronously(request, to: destination, options: options, timeout: timeout, cancellation: nil, progress: progress)
    }

    /// ``downloadSynchronously(_:to:options:timeout:progress:)`` that `cancellation` can end from
    /// another thread (or a signal: ``CancellationToken/interrupt``); the result is then
    /// ``NetworkError/cancelled``, and the partial file is kept to resume from.
    @preconcurrency
    public func downloadSynchronously<R: NetworkRequest>(
        _ request: R,
        to destination: URL,
        options: DownloadOptions = [],
        timeout: TimeInterval? = nil,
        cancellation: CancellationToken?,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<URL, any Error> {
        core.runBlocking(timeout: timeout, cancellation: cancellation, failure: { request.convertError($0, response: nil) }) { target, completion in
            core.download(request, to: destination, options: options, target: target, progress: progress, completion: completion)
        }
    }
}
