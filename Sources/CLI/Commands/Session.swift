import Courier
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The network a command runs on, and the interrupt handling that cancels it.
struct Session: Sendable {
    let network: Network
    let interrupts: Interrupts
    /// The session's own cookies: those of `-b`, and those the server sets during the run.
    let cookieStorage: HTTPCookieStorage

    init(_ settings: Settings, console: Console) {
        // Ephemeral: a command-line tool must not leave cookies or cache behind (`-c` saves
        // cookies explicitly). Callbacks go to a private queue; the blocking calls never need
        // it, but nothing should use `.main`, whose thread is the one blocked.
        let configuration = URLSessionConfiguration.ephemeral
        // The storage object is shared with the session's copy of the configuration.
        let cookieStorage = configuration.httpCookieStorage ?? HTTPCookieStorage.shared
        configuration.httpCookieStorage = cookieStorage
        if let proxy = settings.proxy {
            // One proxy for both schemes, as curl's -x; the curl engine takes a URL there, so
            // the scheme (socks5://…) and port the user typed reach libcurl unchanged.
            configuration.connectionProxyDictionary = ["HTTPProxy": proxy, "HTTPSProxy": proxy]
        }
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "courier.callbacks"),
                              maximumConcurrentRequests: settings.maxConcurrent, engine: settings.engine, tls: settings.tls,
                              connection: settings.connection)
        // curl retries nothing unless asked; so does courier.
        network.retryPolicy = settings.retries == 0 ? .none : RetryPolicy(maxAttempts: settings.retries + 1)
        if let maxRedirects = settings.maxRedirects {
            // -1 is curl's "no limit"; URLSession still stops after its own 20 (exit 47 too).
            network.maximumRedirects = maxRedirects < 0 ? .max : maxRedirects
        }
        var interceptors: [any RequestInterceptor] = []
        if let connectTimeout = settings.connectTimeout { interceptors.append(ConnectTimeout(seconds: connectTimeout)) }
        if settings.retryDelay != nil || settings.retryMaxTime != nil {
            interceptors.append(RetryTiming(policy: network.retryPolicy, delay: settings.retryDelay, maxTime: settings.retryMaxTime))
        }
        network.interceptors = interceptors
        self.network = network
        self.cookieStorage = cookieStorage
        // close(), not cancelAll(): a worker thread may be about to start its next download.
        self.interrupts = Interrupts.shared
        interrupts.onInterrupt { network.close() }
    }
}
