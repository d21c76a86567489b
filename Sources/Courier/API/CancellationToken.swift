import Foundation

/// Cancels blocking calls from wherever the user stands: another thread, a timer, a signal.
///
/// A blocking call has no ``NetworkTask`` to cancel: the thread that would hold it is the one
/// blocked. Give the call a token instead, and cancel the token from anywhere:
///
/// ```swift
/// let stop = CancellationToken()
/// DispatchQueue.global().asyncAfter(deadline: .now() + 5) { stop.cancel() }
/// let result = Network.shared.scheduleSynchronously(Request<Data>.get("https://example.com/slow"), cancellation: stop)
/// // .failure(NetworkError.cancelled) if it took longer than 5 s
/// ```
///
/// One token may serve any number of calls, at once or one after another: ``cancel()`` ends every
/// call holding it, as ``NetworkTask/cancel()`` would (a download keeps its partial file), and a
/// call given a token already cancelled ends at once, `cancelled`, having sent nothing. A token
/// is never reset: make a new one for work that should run again.
///
/// For Ctrl-C, ``interrupt`` is a token the process's first interrupt cancels.
public final class CancellationToken: Sendable {
    private struct State {
        var cancelled = false
        var nextID: UInt64 = 0
        var tasks: [UInt64: NetworkTask] = [:]
    }

    private let state = Locked(State())

    /// A token not yet cancelled.
    public init() {}

    /// Cancels every call holding the token now, and every call given it from now on.
    /// Returns at once; calling it again does nothing.
    public func cancel() {
        let tasks = state.withLock { state -> [NetworkTask] in
            state.cancelled = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
        // Outside the lock: a cancel may run code of Courier's that takes other locks.
        tasks.forEach { $0.cancel() }
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    /// A token that the process's first interrupt (Ctrl-C, `SIGINT`) cancels: the one line a
    /// script needs for a clean Ctrl-C.
    ///
    /// ```swift
    /// let result = Network.shared.downloadSynchronously(Request<Data>.get("https://example.com/a.iso"),
    ///                                                   to: URL(fileURLWithPath: "a.iso"),
    ///                                                   cancellation: .interrupt)
    /// // Ctrl-C: .failure(NetworkError.cancelled), a.iso.partial kept; run again to resume.
    /// ```
    ///
    /// Its first use sets the process's `SIGINT` handler (a plain C handler that only wakes a
    /// thread of Courier's; it replaces any handler set before). After the first interrupt the
    /// default action is back, so a second Ctrl-C ends the process as usual. A process that handles
    /// `SIGINT` itself should cancel a token of its own instead.
    public static var interrupt: CancellationToken {
        InterruptSignal.token
    }

    /// Holds `task` until ``release(_:)``; cancels it at once, and returns `nil`, if the token
    /// is cancelled already.
    func hold(_ task: NetworkTask) -> UInt64? {
        let id = state.withLock { state -> UInt64? in
            guard !state.cancelled else { return nil }
            state.nextID += 1
            state.tasks[state.nextID] = task
            return state.nextID
        }
        if id == nil { task.cancel() }
        return id
    }

    /// The call that held `id` has returned.
    func release(_ id: UInt64?) {
        guard let id else { return }
        state.withLock { _ = $0.tasks.removeValue(forKey: id) }
    }
}
