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
    ) async throws -> R.Output where R.Output: Sendable {
        try await core.runAsync { completion in
            core.schedule(request, target: .immediate, progress: progress, completion: completion)
        }
    }

    /// Runs a request whose output is not `Sendable` (a class, a generic `Output: Decodable`) and
    /// returns the output `sending`: it is the caller's alone, so it can be used in the calling
    /// actor, the main actor included. Otherwise the same as the `Sendable` form above, which
    /// Swift picks whenever it applies (it skips the hand-over this one pays for).
    ///
    /// ```swift
    /// final class Profile: Decodable { var name = "" }
    /// struct GetProfile: DecodableRequest { typealias Output = Profile; … }
    /// let profile = try await network.response(for: GetProfile())   // usable on the main actor
    /// ```
    public func response<R: NetworkRequest>(
        for request: R,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> sending R.Output {
        let output = try await core.runAsync { completion in
            core.schedule(request, target: .immediate, progress: progress, completion: completion)
        }
        // Courier kept no reference to the output (it was moved to this task by the one
        // completion), but the bridge cannot say so to the compiler: vouched for here.
        return UncheckedSendable(output).value
    }
}

extension Network {
    /// Runs a request and returns its output with the response it came in: status, headers,
    /// final URL, HTTP version and metrics (``Response``). The same as
    /// ``response(for:progress:)-2f8cw`` with ``NetworkRequest/withResponse()``, which the
    /// callback and blocking conventions use for the same result.
    ///
    /// ```swift
    /// let page = try await network.send(Request<Data>.get(url))
    /// print(page.statusCode, page.headers["ETag"] ?? "", page.value.count)
    /// ```
    ///
    /// - Parameters:
    ///   - request: What to send and how to read the answer.
    ///   - progress: Progress events, in order, on a private serial queue.
    /// - Returns: The request's output and the response head (its body left out).
    /// - Throws: A ``NetworkError`` (or the request's converted error), or `CancellationError`.
    public func send<R: NetworkRequest>(
        _ request: R,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> Response<R.Output> where R.Output: Sendable {
        try await response(for: request.withResponse(), progress: progress)
    }

    /// ``send(_:progress:)-8zzf2`` for a request whose output is not `Sendable`: the response is
    /// returned `sending`, the caller's alone (see ``response(for:progress:)-3w6i0``).
    public func send<R: NetworkRequest>(
        _ request: R,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> sending Response<R.Output> {
        try await response(for: request.withResponse(), progress: progress)
    }
}

extension Network {
    /// Downloads to a file; the async form of ``download(_:to:options:callbackQueue:progress:completion:)``.
    /// Cancelling the calling `Task` cancels the download (keeping the partial file for a resume)
    /// and throws `CancellationError`.
    public func download<R: NetworkRequest>(
        _ request: R,
        to destination: URL,
        options: DownloadOptions = []
    ) async throws -> URL {
        try await download(request, to: destination, options: options, progress: nil)
    }

    /// Downloads to a file, reporting progress; see ``download(_:to:options:)``.
    public func download<R: NetworkRequest>(
        _ request: R,
        to destination: URL,
        options: DownloadOptions = [],
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> URL {
        try await core.runAsync { completion in
            core.download(request, to: destination, options: options, target: .immediate, progress: progress, completion: completion)
        }
    }
}
