import Foundation

extension NetworkRequest {
    /// Schedules this request on `network` (``Network/shared`` by default).
    /// See ``Network/schedule(_:callbackQueue:progress:completion:)``.
    @discardableResult @preconcurrency
    public func schedule(
        on network: Network = .shared,
        callbackQueue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) -> NetworkTask {
        network.schedule(self, callbackQueue: callbackQueue, progress: progress, completion: completion)
    }

    /// Runs this request on `network` and blocks until it ends.
    /// See ``Network/scheduleSynchronously(_:timeout:progress:)``.
    @preconcurrency
    public func scheduleSynchronously(
        on network: Network = .shared,
        timeout: TimeInterval? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<Output, any Error> {
        network.scheduleSynchronously(self, timeout: timeout, progress: progress)
    }

    /// Runs this request on `network` and blocks until it ends, or until `cancellation` is
    /// cancelled. See ``Network/scheduleSynchronously(_:timeout:cancellation:progress:)``.
    @preconcurrency
    public func scheduleSynchronously(
        on network: Network = .shared,
        timeout: TimeInterval? = nil,
        cancellation: CancellationToken?,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<Output, any Error> {
        network.scheduleSynchronously(self, timeout: timeout, cancellation: cancellation, progress: progress)
    }

    /// Runs this request on `network` and returns its output. See
    /// ``Network/response(for:progress:)-2f8cw``.
    public func response(
        on network: Network = .shared,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> Output where Output: Sendable {
        try await network.response(for: self, progress: progress)
    }

    /// Runs this request, whose output is not `Sendable`, on `network` and returns its output
    /// `sending`, so that the calling actor may use it. See ``Network/response(for:progress:)-3w6i0``.
    public func response(
        on network: Network = .shared,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> sending Output {
        try await network.response(for: self, progress: progress)
    }
}
