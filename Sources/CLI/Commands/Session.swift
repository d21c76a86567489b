import Courier
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The networks a command runs on, their shared cookie storage, and the interrupt handling that
/// cancels them.
struct Session: Sendable {
    /// The network of the command (of its first worker, with `-Z`).
    let network: Network
    let interrupts: Interrupts
    /// The session's own cookies: those of `-b`, and those the server sets during the run.
    let cookieStorage: HTTPCookieStorage
    private let settings: Settings
    /// Every network made, closed together on Ctrl-C.
    private let networks: Locked<[Network]>

    /// The `User-Agent` the command sends unless told otherwise (`-A`, `-H`): curl's own,
    /// `curl/VERSION` with the version of the libcurl in use (read from `curl_version_info` at
    /// run time; on the URLSession engine FoundationNetworking loads that same system library).
    /// Servers tell curl apart by that product name (plain text for `curl/`, a page for a
    /// browser), and a command line that works with curl must get the same answer. Where no
    /// libcurl can be loaded there is no version to give, and courier names itself.
    static let userAgent = Network.Engine.curlFeatures.map { "curl/\($0.version)" } ?? "courier/\(CourierVersion.current)"

    init(_ settings: Settings, console: Console) {
        // The storage object is shared with each session's copy of the configuration, and with
        // every network of the command (`-Z`).
        let cookieStorage = URLSessionConfiguration.ephemeral.httpCookieStorage ?? HTTPCookieStorage.shared
        self.settings = settings
        self.cookieStorage = cookieStorage
        let network = Self.network(settings, cookieStorage)
        self.network = network
        networks = Locked([network])
        // close(), not cancelAll(): a worker thread may be about to start its next transfer.
        self.interrupts = Interrupts.shared
        let networks = self.networks
        interrupts.onInterrupt { networks.withLock { $0 }.forEach { $0.close() } }
    }

    /// Another network like the first (same settings, same cookies), for a parallel worker:
    /// each runs one transfer at a time, so its observers report that transfer alone.
    func makeNetwork() -> Network {
        let network = Self.network(settings, cookieStorage)
        networks.withLock { $0.append(network) }
        // A signal that came while it was being made: it must not start anything either.
        if interrupts.isInterrupted { network.close() }
        return network
    }

    private static func network(_ settings: Settings, _ cookieStorage: HTTPCookieStorage) -> Network {
        // Ephemeral: a command-line tool must not leave cookies or cache behind (`-c` saves
        // cookies explicitly). Callbacks go to a private queue; the blocking calls never need
        // it, but nothing should use `.main`, whose thread is the one blocked.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = cookieStorage
        if !settings.keepsCookies {
            // Neither -b nor -c: a cookie one response sets is not sent with the next, as in curl.
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
        }
        // Nor cache anything between the URLs of one command line: curl has no cache.
        configuration.urlCache = nil
        if let proxy = settings.proxy {
            // One proxy for both schemes, as curl's -x; the curl engine takes a URL there, so
            // the scheme (socks5://…) and port the user typed reach libcurl unchanged.
            configuration.connectionProxyDictionary = ["HTTPProxy": proxy, "HTTPSProxy": proxy]
        }
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "courier.callbacks"),
                              maximumConcurrentRequests: settings.maxConcurrent, engine: settings.networkEngine, tls: settings.tls,
                              connection: settings.connection)
        network.userAgent = userAgent
        network.followsRedirects = settings.followsRedirects
        network.decompressesResponses = settings.decompresses
        // curl retries nothing unless asked; so does courier. Requests retry by curl's rules in
        // the command itself (RetryRules); downloads use the library's policy.
        network.retryPolicy = settings.retries == 0 || !settings.retriesInLibrary ? .none : RetryPolicy(maxAttempts: settings.retries + 1)
        if let maxRedirects = settings.maxRedirects {
            // -1 is curl's "no limit"; URLSession still stops after its own 20 (exit 47 too).
            network.maximumRedirects = maxRedirects < 0 ? .max : maxRedirects
        }
        var interceptors: [any RequestInterceptor] = []
        if settings.retriesInLibrary, settings.retryDelay != nil || settings.retryMaxTime != nil {
            interceptors.append(RetryTiming(policy: network.retryPolicy, delay: settings.retryDelay, maxTime: settings.retryMaxTime))
        }
        network.interceptors = interceptors
        return network
    }
}
