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

    init(_ settings: Settings, console: Console) {
        // Ephemeral: a command-line tool must not leave cookies or cache behind.
        let configuration = URLSessionConfiguration.ephemeral
        if let proxy = settings.proxy {
            // One proxy for both schemes, as curl's -x; the curl engine takes a URL there, so
            // the scheme (socks5://…) and port the user typed reach libcurl unchanged.
            configuration.connectionProxyDictionary = ["HTTPProxy": proxy, "HTTPSProxy": proxy]
        }
        // Callbacks go to a private queue; the blocking calls never need it, but nothing should
        // use `.main`, whose thread is the one blocked.
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "courier.callbacks"),
                              maximumConcurrentRequests: settings.maxConcurrent, engine: settings.engine, tls: settings.tls)
        if settings.engine == .curl, network.engine != .curl, !settings.silent {
            // The library's own fallback: worth a notice, not a failure.
            console.message("the curl engine cannot be used (\(Network.Engine.curlUnavailableReason ?? "unknown reason")); using URLSession")
        }
        // curl retries nothing unless asked; so does courier.
        network.retryPolicy = settings.retries == 0 ? .none : RetryPolicy(maxAttempts: settings.retries + 1)
        self.network = network
        // close(), not cancelAll(): a worker thread may be about to start its next download.
        self.interrupts = Interrupts.shared
        interrupts.onInterrupt { network.close() }
    }
}
