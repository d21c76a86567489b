import Foundation

extension NetworkRequest {
    /// HPNetwork 2.x's name for a request's result.
    public typealias RequestResult = Result<Output, any Error>
    /// HPNetwork 2.x's name for a request's completion handler (`@Sendable` here: it runs on
    /// another queue than the one that scheduled it).
    public typealias Completion = @Sendable (RequestResult) -> Void

    /// HPNetwork 2.x's call with a progress handler: ``schedule(on:callbackQueue:progress:completion:)``
    /// with a Foundation `Progress`. Without one, `request.schedule { result in … }` is Courier's
    /// own call, as before.
    ///
    /// ```swift
    /// request.schedule(progressHandler: { progress in print(progress.fractionCompleted) }) { result in
    ///     print(result)
    /// }
    /// ```
    @discardableResult @preconcurrency
    public func schedule(
        on network: Network = .shared,
        progressHandler: ProgressHandler?,
        completion: @escaping Completion
    ) -> NetworkTask {
        network.schedule(request: self, progressHandler: progressHandler, completion: completion)
    }

    /// HPNetwork 2.x's blocking call with a progress handler: ``scheduleSynchronously(on:timeout:progress:)``
    /// with a Foundation `Progress`.
    ///
    /// ```swift
    /// let result = request.scheduleSynchronously(progressHandler: { progress in print(progress.completedUnitCount) })
    /// ```
    @preconcurrency
    public func scheduleSynchronously(
        on network: Network = .shared,
        progressHandler: ProgressHandler?
    ) -> RequestResult {
        network.scheduleSynchronously(request: self, progressHandler: progressHandler)
    }
}
