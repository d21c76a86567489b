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
        switch self {
        case .curl:
            return Self.makeCurlCore(CurlConfiguration(configuration, tls: tls, connection: connection),
                                     maximumConcurrentRequests: maximumConcurrentRequests, workQueue: workQueue)
        case .urlSession, .automatic, .stub:   // resolve never returns the last two
            let unusable = connection.problem.map(NetworkError.invalidRequest)
            let timeouts = RequestTimeout.networkTimeouts(configuration: configuration, connection: connection)
            let unsupported = tls.isCustomized ? TLSOptions.unsupportedByURLSession
                : unusable ?? (connection.isCustomized ? ConnectionOptions.unsupportedByURLSession : nil)
            let cache = URLCacheBridge.cache(for: configuration)
            let cachePolicy = configuration.requestCachePolicy
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

    /// The core of a network on the curl engine, made from its own configuration (a
    /// `URLSessionConfiguration` is mapped to one first).
    static func makeCurlCore(_ configuration: CurlConfiguration, maximumConcurrentRequests: Int,
                             workQueue: DispatchQueue?) -> NetworkCore {
        let unusable = configuration.connection.problem.map(NetworkError.invalidRequest)
        return NetworkCore(maximumConcurrentRequests: maximumConcurrentRequests,
                           sessionCookies: configuration.cookies.map(SessionCookies.init(storage:)),
                           unsupportedSetting: unusable, timeouts: RequestTimeout.networkTimeouts(curl: configuration.connection),
                           cache: configuration.cache, cachePolicy: configuration.cachePolicy, workQueue: workQueue) { _, _ in
            CurlTransport(configuration: configuration, maximumConcurrentRequests: maximumConcurrentRequests)
        }
    }
}
