import Dispatch
import Foundation

/// Turns Ctrl-C (SIGINT) and SIGTERM into a clean cancel of every transfer.
///
/// The signals are handled by Dispatch sources rather than a C handler, so the reaction is
/// ordinary Swift code on a private queue (the main thread is busy waiting in a blocking call).
/// The first signal cancels through `onInterrupt` (``Courier/Network/close()``): each blocking
/// call returns `NetworkError.cancelled`, including one a worker thread starts a moment later,
/// downloads keep their `.partial` file, and the command exits with 130. A second signal exits
/// at once, for when the user has lost patience.
final class Interrupts: @unchecked Sendable {
    // `@unchecked` is sound: `interrupted` is only touched with `lock` held; `sources` is
    // written once in `init` and only kept alive afterwards.
    private let queue = DispatchQueue(label: "courier.interrupts")
    private let lock = NSLock()
    private var interrupted = false
    private var sources: [any DispatchSourceSignal] = []
    private let onInterrupt: @Sendable () -> Void

    init(onInterrupt: @escaping @Sendable () -> Void) {
        self.onInterrupt = onInterrupt
        for signalNumber in [SIGINT, SIGTERM] {
            // The default action would kill the process at once; ignoring it leaves the signal
            // to the Dispatch source alone.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in self?.handleSignal() }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether a signal has arrived; checked before starting each transfer.
    var isInterrupted: Bool {
        lock.withLock { interrupted }
    }

    private func handleSignal() {
        let first = lock.withLock { () -> Bool in
            defer { interrupted = true }
            return !interrupted
        }
        guard first else {
            Console.shared.message("interrupted again; stopping now")
            _exit(ExitCode.interrupted.rawValue)
        }
        onInterrupt()
    }
}
