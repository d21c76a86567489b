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
///
/// One immutable value, replaced whole on each change (``NetworkCore/changeSettings(_:)``): so a
/// transfer takes all of them at once, and keeps them with one reference.
final class TransferSettings: Sendable {
    /// The settings as values, for a change (``NetworkCore/changeSettings(_:)``).
    struct Values: Sendable {
        var observers: [any NetworkObserver] = []
        var interceptors: [any RequestInterceptor] = []
        /// The network's policy; a request's own ``NetworkRequest/retryPolicy`` wins over it.
        var retryPolicy = RetryPolicy()
        var followsRedirects = true
        var maximumRedirects = 10
        var decompressionLimit = DecompressionLimit.standard
        var decompressesResponses = true
        /// ``Network/cache``.
        var cache: HTTPCache?
        /// The configuration's `requestCachePolicy`: the policy of a request that sets none.
        var cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
    }

    let values: Values

    init(_ values: Values) {
        self.values = values
    }

    var observers: [any NetworkObserver] { values.observers }
    var interceptors: [any RequestInterceptor] { values.interceptors }
    var retryPolicy: RetryPolicy { values.retryPolicy }
    var followsRedirects: Bool { values.followsRedirects }
    var maximumRedirects: Int { values.maximumRedirects }
    var decompressionLimit: DecompressionLimit { values.decompressionLimit }
    var decompressesResponses: Bool { values.decompressesResponses }
    var cache: HTTPCache? { values.cache }
    var cachePolicy: URLRequest.CachePolicy { values.cachePolicy }

    /// These settings with the HTTP behaviours a request sets for itself
    /// (``TransferOptions/followsRedirects``, ``TransferOptions/maximumRedirects``,
    /// ``TransferOptions/decompressesResponses``).
    func overridden(by options: TransferOptions) -> TransferSettings {
        var values = values
        values.followsRedirects = options.followsRedirects ?? values.followsRedirects
        values.maximumRedirects = options.maximumRedirects.map { max(0, $0) } ?? values.maximumRedirects
        values.decompressesResponses = options.decompressesResponses ?? values.decompressesResponses
        return TransferSettings(values)
    }
}

extension NetworkCore {
    /// The settings in force now, for a transfer being scheduled: one lock and one retain (each
    /// setting behind a lock of its own was eight locks, and the value a copy of every part).
    func settingsSnapshot() -> TransferSettings {
        settings.withLock { $0 }
    }

    /// Changes the settings for the transfers scheduled from now on; the ones scheduled before
    /// keep theirs.
    func changeSettings(_ change: (inout TransferSettings.Values) -> Void) {
        settings.withLock { current in
            var values = current.values
            change(&values)
            current = TransferSettings(values)
        }
    }
}
