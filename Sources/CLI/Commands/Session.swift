import Courier
import Dispatch

/// The network a command runs on, and the interrupt handling that cancels it.
struct Session: Sendable {
    let network: Network
    let interrupts: Interrupts

    init(_ settings: Settings) {
        // Ephemeral: a command-line tool must not leave cookies or cache behind. Callbacks go to
        // a private queue; the blocking calls never need it, but nothing should use `.main`,
        // whose thread is the one blocked.
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "courier.callbacks"),
                              maximumConcurrentRequests: settings.maxConcurrent)
        // curl retries nothing unless asked; so does courier.
        network.retryPolicy = settings.retries == 0 ? .none : RetryPolicy(maxAttempts: settings.retries + 1)
        self.network = network
        // close(), not cancelAll(): a worker thread may be about to start its next download.
        self.interrupts = Interrupts.shared
        interrupts.onInterrupt { network.close() }
    }
}
