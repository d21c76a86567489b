import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// A network that answers every request with `respond` instead of sending it, for tests of
    /// code built on Courier and for measuring Courier's own overhead.
    ///
    /// Everything else is real: the request is built, queued behind the concurrency limit,
    /// given a deadline, validated and decoded, and its completion delivered exactly once on the
    /// callback queue, exactly as with a URLSession. `respond` runs on Courier's delegate queue:
    /// keep it quick and non-blocking. Its ``Network/engine`` is ``Network/Engine/urlSession``,
    /// whose delegate delivery it imitates.
    public convenience init(
        stub respond: @escaping @Sendable (URLRequest) -> StubResponse,
        callbackQueue: DispatchQueue = .main,
        maximumConcurrentRequests: Int = 6
    ) {
        self.init(core: NetworkCore(maximumConcurrentRequests: maximumConcurrentRequests) { registry, delegateQueue in
            StubTransport(respond: respond, registry: registry, delegateQueue: delegateQueue)
        }, engine: .urlSession, callbackQueue: callbackQueue)
    }
}
