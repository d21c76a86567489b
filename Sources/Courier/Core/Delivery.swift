import Dispatch

/// Where and how one transfer's handlers run: its progress events in order, then its one
/// completion, on the queue the caller chose.
///
/// With progress, the handlers get a serial queue of their own (targeting the caller's queue),
/// so that events stay in order and the completion comes after the last of them even on a
/// concurrent queue. Progress events still queued when a cancel ends the transfer are dropped.
///
/// The completion is not kept here but by the transfer's body (``TransferBody/completion``), and
/// handed to ``deliver(_:to:)``: so this is a plain value the transfer holds inline, with no type
/// parameter. As an object it
/// was an allocation a request; as a generic value held inline, each of the transfer's uses of
/// it looked its type up at run time (about 600 instructions each).
///
/// The output need not be `Sendable` (a request's ``NetworkRequest/Output`` may be a class, say
/// an HPNetwork-era `Decodable` model): the value the body made is moved to the completion's
/// queue and handed to the one completion, and Courier keeps no reference to it, so it is never
/// used from two threads at once.
struct Delivery: Sendable {
    private let target: CallbackTarget
    private let handlerQueue: DispatchQueue?
    /// Only with a progress handler; it also keeps the cancelled flag (without a handler there
    /// is no event to drop, and no lock to allocate).
    private let reporter: ProgressReporter?

    init(target: CallbackTarget, progress: (@Sendable (TransferProgress) -> Void)?) {
        self.target = target
        let handlerQueue = progress == nil ? nil : target.makeSerialQueue()
        self.handlerQueue = handlerQueue
        self.reporter = progress.map { ProgressReporter($0, queue: handlerQueue!) }
    }

    /// Lets the progress handler cancel the transfer (see ``TransferProgress/cancelTransfer()``).
    /// Made only where there is a handler: a request without one allocates nothing for it.
    func attach(_ cancel: () -> TransferCancellation) {
        reporter?.attach(cancel())
    }

    /// Whether the handlers run on the finishing thread itself (the blocking and async bridges).
    var isImmediate: Bool {
        switch target {
        case .immediate, .driven: return true
        case .queue: return false
        }
    }

    /// The blocking caller whose thread runs this transfer's tasks, if it has one.
    var driver: (any CallerDriver)? {
        if case let .driven(driver) = target { return driver }
        return nil
    }

    /// Offers a progress event (throttled; see ``ProgressReporter``).
    func report(_ progress: TransferProgress, force: Bool) {
        reporter?.update(progress, force: force)
    }

    /// Drops progress events from now on (the transfer was cancelled).
    func markCancelled() {
        reporter?.markCancelled()
    }

    /// Runs `completion`, after any progress event already queued. Inlined into its callers, the
    /// bodies' commits, so that the result's generic type is looked up there once, not again here.
    @inline(__always)
    func deliver<Output>(_ result: consuming Result<Output, any Error>,
                         to completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        // The blocking and async bridges without a progress handler: called right here, as `run`
        // would, but with no closure to allocate around the result (whose context, holding a
        // generic value, also cost two run-time metadata lookups). No handler queue means no
        // reporter either: there is no progress event to come after.
        if handlerQueue == nil, isImmediate {
            completion(result)
            return
        }
        let reporter = self.reporter
        // Moved, not shared: the caller gives the result up, and the one completion receives it.
        // (`nonisolated(unsafe)` rather than a wrapper type: a generic wrapper costs a run-time
        // metadata lookup per request, measured at about 400 instructions.)
        nonisolated(unsafe) let result = consume result
        guard target.isMainQueue else {
            return run {
                reporter?.markCompletionDelivered()
                completion(result)
            }
        }
        // A script's main thread blocked waiting for this completion would hang silently.
        let ticket = MainQueueWatcher.shared.queued()
        run {
            MainQueueWatcher.shared.ran(ticket)
            reporter?.markCompletionDelivered()
            completion(result)
        }
    }

    private func run(_ body: @escaping @Sendable () -> Void) {
        // Held back a moment when the curl loop ends several transfers at once (``DispatchBatch``).
        if let handlerQueue {
            DispatchBatch.async(body, on: handlerQueue)
        } else if case let .queue(queue) = target {
            DispatchBatch.async(body, on: queue)
        } else {
            body()
        }
    }
}
