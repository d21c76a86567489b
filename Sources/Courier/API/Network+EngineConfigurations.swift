import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// A network on the curl engine, made from the engine's own configuration: every field is
    /// something libcurl does, and what cannot work is refused here, not by each request.
    ///
    /// ```swift
    /// var settings = CurlConfiguration()
    /// settings.connection.connectTimeout = 2
    /// do {
    ///     let network = try Network(curl: settings)
    ///     _ = network
    /// } catch {
    ///     print(error.reason)   // e.g. libcurl cannot be loaded here, and why
    /// }
    /// ```
    ///
    /// Unlike `Network(engine: .curl)`, it never falls back to URLSession, and
    /// `COURIER_ENGINE` does not change it.
    ///
    /// - Parameters:
    ///   - configuration: Headers, proxies, TLS, connection options and timeouts, cookies, cache.
    ///   - callbackQueue: Default queue for completion and progress handlers.
    ///   - maximumConcurrentRequests: How many requests may be in flight at once (at least 1;
    ///     0 and below are taken as 1); the rest wait in FIFO order.
    /// - Throws: ``NetworkConfigurationError`` when libcurl cannot be loaded here (missing, or
    ///   older than 7.68.0), or when a setting cannot work on any engine (an empty or too long
    ///   Unix socket path, a rate or timeout of 0, a negative connection limit, a proxy without a
    ///   host).
    public convenience init(curl configuration: CurlConfiguration, callbackQueue: DispatchQueue = .main,
                            maximumConcurrentRequests: Int = 6) throws(NetworkConfigurationError) {
        if let reason = CurlLibrary.unavailableReason {
            throw NetworkConfigurationError(engine: .curl, reason: reason)
        }
        if let problem = configuration.problem {
            throw NetworkConfigurationError(engine: .curl, reason: problem)
        }
        let core = Engine.makeCurlCore(configuration, maximumConcurrentRequests: maximumConcurrentRequests, workQueue: nil)
        self.init(core: core, engine: .curl, callbackQueue: callbackQueue)
    }

    /// A network on the URLSession engine (FoundationNetworking on Linux), whatever
    /// `COURIER_ENGINE` says. It takes no ``TLSOptions`` or ``ConnectionOptions``: URLSession
    /// cannot apply them, so they cannot be given (`Network(engine: .urlSession, tls:)` fails
    /// each request instead).
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.ephemeral
    /// configuration.timeoutIntervalForRequest = 20
    /// let network = Network(urlSession: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The session configuration (copied); <doc:Engines> lists what the
    ///     engine honours of it.
    ///   - callbackQueue: Default queue for completion and progress handlers.
    ///   - maximumConcurrentRequests: How many requests may be in flight at once (at least 1).
    public convenience init(urlSession configuration: URLSessionConfiguration, callbackQueue: DispatchQueue = .main,
                            maximumConcurrentRequests: Int = 6) {
        self.init(configuration: configuration, callbackQueue: callbackQueue, maximumConcurrentRequests: maximumConcurrentRequests,
                  engine: .urlSession, tls: TLSOptions(), connection: ConnectionOptions(), workQueue: nil)
    }
}
