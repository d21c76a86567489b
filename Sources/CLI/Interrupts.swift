import Courier
import Dispatch
import Foundation

/// Turns Ctrl-C (SIGINT) and SIGTERM into a clean cancel of every transfer.
///
/// The signals are blocked in every thread from the start of `main` (``blockSignals()``), so the
/// kernel keeps them pending until a thread of our own takes them with `sigwait` and reacts in
/// ordinary Swift code, while the main thread is busy in a blocking call.
///
/// Neither a Dispatch signal source nor a C handler is reliable here. A signal source on Linux
/// reads a signalfd, which sees the signal only if no thread is left to take it; with the
/// disposition set to "ignore", a signal the kernel handed to another thread was lost. A C
/// handler runs on whichever thread the kernel picks, and under Thread Sanitizer it is deferred
/// until that thread next calls into the runtime, which a thread parked in a futex never does.
/// In both cases Ctrl-C now and then did nothing.
///
/// Once a command has its network, the first signal cancels through the handler it set
/// (``Courier/Network/close()``): each blocking call returns `NetworkError.cancelled`, including
/// one a worker thread starts a moment later, downloads keep their `.partial` file, and the
/// command exits with 130. Before that (say, while reading `--data @-` from a terminal), and on
/// a second signal, for when the user has lost patience, the process exits at once with 130.
final class Interrupts: Sendable {
    /// The process's one signal taker; ``start()`` makes it.
    static let shared = Interrupts()

    /// Whether a signal came, and what the first one does.
    private struct State {
        var interrupted = false
        var handler: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Called first thing in `main`, before any other thread exists: blocks the signals in the
    /// main thread (and so in every thread started later) and starts the thread that takes them.
    static func start() {
        blockSignals()
        _ = shared
    }

    /// Blocks SIGINT and SIGTERM in the calling thread and so in every thread it starts later.
    private static func blockSignals() {
        var signals = handledSignals
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    private static var handledSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }

    private init() {
        // Lives as long as the process: it is parked in sigwait until a signal comes.
        let waiter = Thread { [self] in
            var signals = Self.handledSignals
            var received: Int32 = 0
            while true {
                if sigwait(&signals, &received) == 0 { handleSignal() }
            }
        }
        waiter.name = "courier.interrupts"
        waiter.start()
    }

    /// What the first signal does from now on, instead of exiting at once.
    func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Whether a signal has arrived; checked before starting each transfer.
    var isInterrupted: Bool {
        state.withLock { $0.interrupted }
    }

    /// Waits `seconds` (a retry's pause), or less if a signal comes first. Returns `false` when
    /// interrupted.
    func pause(seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        signalled.lock()
        defer { signalled.unlock() }
        while !isInterrupted {
            if !signalled.wait(until: deadline) { return !isInterrupted }
        }
        return false
    }

    /// Wakes ``pause(seconds:)`` when a signal comes.
    private let signalled = NSCondition()

    private func handleSignal() {
        let (first, reaction) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            defer { state.interrupted = true }
            return (!state.interrupted, state.handler)
        }
        guard first else {
            Console.shared.message("interrupted again; stopping now")
            _exit(ExitCode.interrupted.rawValue)
        }
        guard let reaction else {
            Console.shared.message("interrupted")
            _exit(ExitCode.interrupted.rawValue)
        }
        signalled.lock()
        signalled.broadcast()
        signalled.unlock()
        reaction()
    }
}
