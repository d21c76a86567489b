import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HPNetwork 2.x's progress handler: Foundation's `Progress`, with `fractionCompleted`,
/// `completedUnitCount` and `totalUnitCount` (`-1` while the total is unknown) in bytes.
/// Courier's own calls hand out ``TransferProgress``.
public typealias ProgressHandler = @Sendable (Progress) -> Void

extension Network {
    /// A network whose work runs on `queue`, as HPNetwork 2.x's `Network(queue:)`.
    ///
    /// The requests' own response code (`validate`, `output(from:response:)`, a
    /// ``DecodableRequest``'s decoding, `convertError`) runs on `queue`, for every callback
    /// request whatever its size; completions and progress go to the main queue
    /// (or the request's ``HPNetworkRequestMembers/finishingQueue``), as HPNetwork's did. The
    /// transfers themselves run on the engine's threads. A blocking or async call on this network
    /// runs that code where Courier normally does, so it can be made on `queue` itself.
    ///
    /// Otherwise it is ``init(configuration:callbackQueue:maximumConcurrentRequests:engine:tls:connection:)``
    /// with its defaults: at most 6 requests at once (HPNetwork allowed 10; see
    /// ``maximumConcurrentRequests``).
    ///
    /// ```swift
    /// let customQueue = DispatchQueue(label: "com.example.network", qos: .userInitiated, attributes: .concurrent)
    /// let network = Network(queue: customQueue)
    /// ```
    public convenience init(queue: DispatchQueue) {
        self.init(configuration: .default, callbackQueue: .main, maximumConcurrentRequests: 6, engine: .automatic,
                  tls: TLSOptions(), workQueue: queue)
    }

    /// HPNetwork 2.x's call: ``schedule(_:callbackQueue:progress:completion:)`` with a
    /// Foundation `Progress` handler.
    ///
    /// ```swift
    /// Network.shared.schedule(request: request) { progress in
    ///     print(progress.fractionCompleted)
    /// } completion: { result in
    ///     print(result)
    /// }
    /// ```
    @discardableResult @preconcurrency
    public func schedule<R: NetworkRequest>(
        request: R,
        progressHandler: ProgressHandler? = nil,
        completion: @escaping @Sendable (Result<R.Output, any Error>) -> Void
    ) -> NetworkTask {
        schedule(request, progress: progressHandler.map(Self.reporting), completion: completion)
    }

    /// HPNetwork 2.x's blocking call: ``scheduleSynchronously(_:timeout:progress:)`` with a
    /// Foundation `Progress` handler. Unlike HPNetwork's, it never waits for the queue it is
    /// called on, so it works on the main queue and in a completion handler.
    ///
    /// ```swift
    /// let result = Network.shared.scheduleSynchronously(request: request)
    /// ```
    @preconcurrency
    public func scheduleSynchronously<R: NetworkRequest>(
        request: R,
        progressHandler: ProgressHandler? = nil
    ) -> Result<R.Output, any Error> {
        scheduleSynchronously(request, progress: progressHandler.map(Self.reporting))
    }

    /// A ``TransferProgress`` handler that hands `handler` a Foundation `Progress` for each event.
    static func reporting(to handler: @escaping ProgressHandler) -> @Sendable (TransferProgress) -> Void {
        { progress in handler(progress.foundationProgress) }
    }
}

extension TransferProgress {
    /// A new Foundation `Progress` (attached to no parent) with these byte counts.
    var foundationProgress: Progress {
        let progress = Progress.discreteProgress(totalUnitCount: totalBytes ?? -1)
        progress.completedUnitCount = completedBytes
        return progress
    }
}
