import Foundation

/// Says so when a completion bound for the main queue waits there too long: in a script, the
/// main thread is then most likely blocked waiting for that very completion
/// (`semaphore.wait()` after `schedule`), and it will never run.
///
/// Completions go to the network's callback queue, the main queue unless you chose another. A
/// script whose main thread waits for one hangs silently; with the watch on (the default),
/// Courier prints once, to stderr, what is happening and what to write instead. It changes
/// nothing else: the completion still runs, late, once the main queue is free.
///
/// ```swift
/// Network.mainQueueWatch = nil                                   // off
/// Network.mainQueueWatch = MainQueueWatch(patience: 30) { log.warning("\($0)") }
/// ```
public struct MainQueueWatch: Sendable {
    /// How long a completion may wait for the main queue before the report, in seconds.
    public var patience: TimeInterval
    /// Receives the report, once per stall (a later stall, after the queue has run again, is
    /// reported again). Called on a background queue.
    public var report: @Sendable (String) -> Void

    /// Creates a watch that calls `report` once a completion has waited `patience` seconds.
    public init(patience: TimeInterval, report: @escaping @Sendable (String) -> Void) {
        self.patience = patience
        self.report = report
    }

    /// The default: 5 seconds, then one line on stderr.
    public static let standardError = MainQueueWatch(patience: 5) { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// The report's text, for a completion that has waited `seconds`.
    static func message(waited seconds: Double) -> String {
        "Courier: a completion has waited \(seconds.formatted1) s for the main queue. If the main thread is blocked "
            + "waiting for it (semaphore.wait() after schedule), it never will run. Completions go to the network's "
            + "callbackQueue, .main by default: use scheduleSynchronously, pass callbackQueue: .global(), or let the main "
            + "queue run (dispatchMain()). Network.mainQueueWatch = nil turns this report off."
    }
}

extension Network {
    /// Reports completions that wait too long for a blocked main queue (see ``MainQueueWatch``);
    /// ``MainQueueWatch/standardError`` by default, `nil` for none. Read when a completion is
    /// queued for the main queue.
    public static var mainQueueWatch: MainQueueWatch? {
        get { MainQueueWatcher.shared.watch }
        set { MainQueueWatcher.shared.watch = newValue }
    }
}

/// The bookkeeping behind ``Network/mainQueueWatch``: the completions queued for the main queue
/// and not yet run, and one timer while there are any.
final class MainQueueWatcher: Sendable {
    static let shared = MainQueueWatcher()

    private struct State {
        var watch: MainQueueWatch? = .standardError
        var pending: [UInt64: UInt64] = [:]   // id → when it was queued (uptime, ns)
        var nextID: UInt64 = 0
        var timerArmed = false
        /// Reported for the stall under way: quiet until the main queue has run everything queued.
        var reported = false
    }

    private let state = Locked(State())

    var watch: MainQueueWatch? {
        get { state.withLock { $0.watch } }
        set { state.withLock { $0.watch = newValue } }
    }

    /// A completion is being queued for the main queue: its ticket for ``ran(_:)``, or `nil`
    /// when the watch is off.
    func queued() -> UInt64? {
        let (id, patience) = state.withLock { state -> (UInt64?, TimeInterval?) in
            guard let watch = state.watch else { return (nil, nil) }
            state.nextID += 1
            state.pending[state.nextID] = DispatchTime.now().uptimeNanoseconds
            guard !state.timerArmed else { return (state.nextID, nil) }
            state.timerArmed = true
            return (state.nextID, watch.patience)
        }
        if let patience { arm(after: patience) }
        return id
    }

    /// The completion with this ticket is running.
    func ran(_ id: UInt64?) {
        guard let id else { return }
        state.withLock { state in
            state.pending.removeValue(forKey: id)
            if state.pending.isEmpty { state.reported = false }
        }
    }

    private func arm(after seconds: TimeInterval) {
        let delay = seconds.isFinite ? min(max(seconds, 0.001), 86_400) : 86_400
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in check() }
    }

    /// The timer fired: report a completion that has waited the whole patience, or wait for the
    /// oldest one's turn.
    private func check() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (report, rearm) = state.withLock { state -> ((@Sendable (String) -> Void, String)?, TimeInterval?) in
            state.timerArmed = false
            guard let watch = state.watch, let oldest = state.pending.values.min(), !state.reported else { return (nil, nil) }
            let waited = Double(now &- oldest) / 1e9
            guard waited >= watch.patience else {
                state.timerArmed = true
                return (nil, watch.patience - waited)
            }
            state.reported = true
            return ((watch.report, MainQueueWatch.message(waited: waited)), nil)
        }
        if let rearm { arm(after: rearm) }
        // Outside the lock: the report is the caller's code.
        if let (deliver, message) = report { deliver(message) }
    }
}

private extension Double {
    /// One decimal: `5.0`, `12.3`.
    var formatted1: String {
        let tenths = (self * 10).rounded()
        return tenths.isFinite && abs(tenths) < 1e15 ? "\(Int64(tenths) / 10).\(abs(Int64(tenths) % 10))" : "\(self)"
    }
}
