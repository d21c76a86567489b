import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The life of one scheduled request, shared by every kind of transfer: waiting for a slot,
/// running, and ending exactly once.
///
/// **Exactly once.** Every way a transfer can end (the response is processed, the caller cancels,
/// the deadline passes, URLSession reports an error) goes through ``claimEnd(as:)``, which lets
/// only the first one through. The loser's result is dropped, so the completion runs exactly once.
///
/// **Cancel never blocks.** Ending a running transfer early cancels its `URLSessionTask` on a
/// background queue, never on the caller's thread and never under a lock: on Linux
/// `URLSessionTask.cancel()` blocks for milliseconds to seconds and keeps delivering data while it
/// does. The task is detached from the registry first, so those late bytes are dropped unread.
///
/// Subclasses create the URLSession task, consume its delegate events (on the session's delegate
/// queue, one at a time) and deliver the typed result.
class Transfer: @unchecked Sendable {
    enum Phase {
        /// Waiting for a slot.
        case queued
        /// Has a slot; the URLSession task is being created.
        case starting
        /// The URLSession task is running.
        case running(any TransportTask)
        /// Ended with a result (success or failure).
        case finished
        /// Ended by a cancel.
        case cancelled
    }

    /// How a transfer ends, as put to ``claimEnd(as:)``.
    enum Ending {
        /// The URLSession task is over (with a response or an error): nothing left to cancel.
        case taskCompleted
        /// Ended early (cancel, deadline, shutdown): the URLSession task, if any, is cancelled.
        case aborted(NetworkError)
    }

    let core: NetworkCore
    let timeout: TimeInterval
    /// Serial queue for this transfer's handlers when it reports progress; `nil` otherwise.
    let handlerQueue: DispatchQueue?
    let target: CallbackTarget

    private struct State {
        var phase: Phase = .queued
        var holdsSlot = false
        var deadline: DispatchSourceTimer?
    }

    private let state = Locked(State())

    init(core: NetworkCore, timeout: TimeInterval, target: CallbackTarget, reportsProgress: Bool) {
        self.core = core
        self.timeout = timeout
        self.target = target
        self.handlerQueue = reportsProgress ? target.makeSerialQueue() : nil
    }

    // MARK: - Subclass hooks

    /// Why the transfer cannot even start (e.g. its URL is malformed), known before it is queued.
    var preparationError: NetworkError? { nil }

    /// Creates the URLSession task (not yet resumed). Runs on the start queue.
    func makeSessionTask(in transport: any Transport) throws -> any TransportTask {
        fatalError("subclass must override")
    }

    /// Delivers a failure to the caller; called at most once, after a successful claim.
    func deliverFailure(_ error: NetworkError) {
        fatalError("subclass must override")
    }

    /// Delegate events, on the session's delegate queue.
    func didReceive(response: URLResponse) {}
    func didReceive(data: Data) {}
    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    func didComplete(error: (any Error)?) {}
    func didRejectAuthenticationChallenge() {}
    /// Called once, right after the transfer has ended in any way (before its completion runs):
    /// release resources such as temporary files. Runs on the thread that ended it.
    func didEnd() {}

    // MARK: - Lifecycle

    /// Public view of the phase.
    var publicState: NetworkTask.State {
        state.withLock { state in
            switch state.phase {
            case .queued: return .queued
            case .starting, .running: return .running
            case .finished: return .finished
            case .cancelled: return .cancelled
            }
        }
    }

    /// Whether the transfer was ended by ``cancel()``, a timeout or a failure before its response
    /// was processed. Late progress events are dropped once this is true.
    var hasEnded: Bool {
        state.withLock { state in
            switch state.phase {
            case .finished, .cancelled: return true
            default: return false
            }
        }
    }

    var wasCancelled: Bool {
        state.withLock { if case .cancelled = $0.phase { return true } else { return false } }
    }

    /// Starts the transfer in the slot the queue just gave it. Returns `false` (and the slot goes
    /// back) when it was cancelled while waiting. Runs on the start queue.
    func start() -> Bool {
        let claimedSlot = state.withLock { state -> Bool in
            guard case .queued = state.phase else { return false }
            state.phase = .starting
            state.holdsSlot = true
            return true
        }
        guard claimedSlot else { return false }
        launchSessionTask()
        return true
    }

    /// Replaces the URLSession task, which has just completed, with a new one from
    /// ``makeSessionTask(in:)`` (e.g. a download whose resume was refused must start over).
    /// The slot and the deadline carry over. Called on the delegate queue.
    func restartSessionTask() {
        core.requestQueue.startQueue.async { [self] in
            let stillRunning = state.withLock { state -> Bool in
                guard case .running = state.phase else { return false }
                state.phase = .starting
                return true
            }
            if stillRunning { launchSessionTask() }
        }
    }

    /// Creates, registers and resumes the URLSession task; on the start queue, in phase `.starting`.
    private func launchSessionTask() {
        let task: any TransportTask
        do {
            task = try makeSessionTask(in: core.transport)
        } catch {
            fail(error as? NetworkError ?? NetworkError.from(error))
            return
        }
        core.registry.attach(task, to: self)
        let stillWanted = state.withLock { state -> Bool in
            guard case .starting = state.phase else { return false }
            state.phase = .running(task)
            if state.deadline == nil { state.deadline = makeDeadline() }
            return true
        }
        if stillWanted {
            task.resume()
        } else {
            // Ended while the task was being made: it was never resumed, drop it quietly.
            core.registry.detach(task)
            core.cancelInBackground(task)
        }
    }

    /// Cancels the transfer: the completion receives ``NetworkError/cancelled`` at once.
    func cancel() {
        end(with: .cancelled)
    }

    /// Ends the transfer early with `error` (cancel, deadline): cancels the URLSession task.
    /// Does nothing if it has already ended.
    func end(with error: NetworkError) {
        guard claimEnd(as: .aborted(error)) else { return }
        deliverFailure(error)
    }

    /// Ends the transfer with `error` once its URLSession task is over (or was never made).
    func fail(_ error: NetworkError) {
        guard claimEnd(as: .taskCompleted) else { return }
        deliverFailure(error)
    }

    /// The single gate every ending passes through: returns `true` for the first caller only.
    /// The winner releases the slot, stops the deadline timer and, for an early end, cancels the
    /// URLSession task in the background.
    func claimEnd(as ending: Ending) -> Bool {
        let claim = state.withLock { state -> (task: (any TransportTask)?, slot: Bool, timer: DispatchSourceTimer?)? in
            let task: (any TransportTask)?
            switch state.phase {
            case .finished, .cancelled: return nil
            case let .running(running): task = running
            case .queued, .starting: task = nil
            }
            if case .aborted(.cancelled) = ending { state.phase = .cancelled } else { state.phase = .finished }
            let claim = (task: task, slot: state.holdsSlot, timer: state.deadline)
            state.holdsSlot = false
            state.deadline = nil
            return claim
        }
        guard let claim else { return false }
        claim.timer?.cancel()
        if let task = claim.task {
            core.registry.detach(task)
            if case .aborted = ending { core.cancelInBackground(task) }
        }
        core.transferDidEnd(self, releasingSlot: claim.slot)
        didEnd()
        return true
    }

    /// Runs `body` where this transfer's handlers run: its serial queue when it reports progress
    /// (so the completion follows the last progress event), else the callback target.
    func onHandlerQueue(_ body: @escaping @Sendable () -> Void) {
        if let handlerQueue {
            handlerQueue.async(execute: body)
        } else if case let .queue(queue) = target {
            queue.async(execute: body)
        } else {
            body()
        }
    }

    private func makeDeadline() -> DispatchSourceTimer? {
        guard timeout.isFinite, timeout > 0 else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: core.timerQueue)
        timer.setEventHandler { [weak self] in self?.end(with: .timedOut) }
        timer.schedule(deadline: .now() + timeout)
        timer.resume()
        return timer
    }
}
