import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The network's settings a transfer keeps from the moment it is scheduled to its end.
///
/// A ``Network``'s settings can change from any thread at any time. A request keeps those in
/// force when it was scheduled — though they change while it waits in the queue, between its
/// attempts or during a redirect — so that one request never runs half under the old settings
/// and half under the new (an observer told of its `willSend` but not of its end, an
/// interceptor that adapted the first attempt and not the retry). Requests scheduled after a
/// change get the new settings. The request as sent (its ``WireRequest``, the network's defaults and
/// `User-Agent` applied), its body's size limit and its JSON coders are taken at the same moment.
struct TransferSettings: Sendable {
    let observers: [any NetworkObserver]
    let interceptors: [any RequestInterceptor]
    /// The network's policy; a request's own ``NetworkRequest/retryPolicy`` wins over it.
    let retryPolicy: RetryPolicy
    let followsRedirects: Bool
    let maximumRedirects: Int
    let decompressionLimit: DecompressionLimit
    let decompressesResponses: Bool
    /// ``Network/cache`` and the configuration's `requestCachePolicy`.
    let cache: HTTPCache?
    let cachePolicy: URLRequest.CachePolicy
}

extension TransferSettings {
    /// These settings with the HTTP behaviours a request sets for itself
    /// (``TransferOptions/followsRedirects``, ``TransferOptions/maximumRedirects``,
    /// ``TransferOptions/decompressesResponses``).
    func overridden(by options: TransferOptions) -> TransferSettings {
        TransferSettings(observers: observers, interceptors: interceptors, retryPolicy: retryPolicy,
                         followsRedirects: options.followsRedirects ?? followsRedirects,
                         maximumRedirects: options.maximumRedirects.map { max(0, $0) } ?? maximumRedirects,
                         decompressionLimit: decompressionLimit,
                         decompressesResponses: options.decompressesResponses ?? decompressesResponses,
                         cache: cache, cachePolicy: cachePolicy)
    }
}

extension NetworkCore {
    /// The settings in force now, for a transfer being scheduled.
    func settingsSnapshot() -> TransferSettings {
        TransferSettings(observers: observerList.withLock { $0 }, interceptors: interceptors.withLock { $0 },
                         retryPolicy: retryPolicy.withLock { $0 }, followsRedirects: followsRedirects.withLock { $0 },
                         maximumRedirects: maximumRedirects.withLock { $0 }, decompressionLimit: decompressionLimit.withLock { $0 },
                         decompressesResponses: decompressesResponses.withLock { $0 }, cache: cache.withLock { $0 },
                         cachePolicy: cachePolicy)
    }
}
