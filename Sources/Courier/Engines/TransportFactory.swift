import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network.Engine {
    /// The core of a new ``Network`` on this engine (resolved already: `.curl` or `.urlSession`),
    /// over the transport the engine builds from the settings. The one place outside an
    /// engine's own folder that names its transport: the core knows transports only through
    /// the ``Transport`` protocol.
    func makeCore(configuration: URLSessionConfiguration, maximumConcurrentRequests: Int, tls: TLSOptions,
                  connection: ConnectionOptions, workQueue: DispatchQueue?) -> NetworkCore {
        let unusable = connection.problem.map(NetworkError.invalidRequest)
        let timeouts = RequestTimeout.networkTimeouts(configuration: configuration, connection: connection)
        let cache = URLCacheBridge.cache(for: configuration)
        let cachePolicy = configuration.requestCachePolicy
        switch self {
        case .curl:
            let cookies = SessionCookies.forEngineOwnedCookies(configuration)
            return NetworkCore(maximumConcurrentRequests: maximumConcurrentRequests, sessionCookies: cookies,
                               unsupportedSetting: unusable, timeouts: timeouts, cache: cache, cachePolicy: cachePolicy,
                               workQueue: workQueue) { registry, _ in
                CurlTransport(configuration: configuration, tls: tls, connection: connection,
                              maximumConcurrentRequests: maximumConcurrentRequests, registry: registry)
            }
        case .urlSession, .automatic, .stub:   // resolve never returns the last two
            let unsupported = tls.isCustomized ? TLSOptions.unsupportedByURLSession
                : unusable ?? (connection.isCustomized ? ConnectionOptions.unsupportedByURLSession : nil)
            // URLSession would choose cookies wrongly: Courier takes them over (SessionCookies).
            let (configuration, cookies) = SessionCookies.takeOver(HTTPCache.takeOver(RequestTimeout.takeable(configuration)))
            return NetworkCore(maximumConcurrentRequests: maximumConcurrentRequests, sessionCookies: cookies,
                               unsupportedSetting: unsupported, timeouts: timeouts, cache: cache, cachePolicy: cachePolicy,
                               workQueue: workQueue) { registry, delegateQueue in
                URLSession(configuration: configuration, delegate: SessionDelegate(registry: registry),
                           delegateQueue: BoundedDelegateQueue(underlying: delegateQueue))
            }
        }
    }
}
