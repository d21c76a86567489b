import Dispatch

/// Where a transfer's progress and completion handlers run.
enum CallbackTarget: Sendable {
    /// On this queue (the public callback APIs).
    case queue(DispatchQueue)
    /// On whichever Courier thread finishes the transfer, with no queue hop. Used only by the
    /// blocking and async bridges, whose handlers merely open a latch or resume a
    /// continuation: that is what lets the blocking call work while the callback queue is blocked.
    case immediate
    /// As `.immediate`, for a blocking call whose own thread runs the transfer's tasks
    /// (``CallerDriver``): the completion is delivered on whichever thread ends the transfer,
    /// most often the caller's own, while it drives.
    case driven(any CallerDriver)

    /// Whether the handlers go to the main queue (which a script's main thread may be blocking).
    /// By a queue-specific value set on the main queue once: on Linux every `DispatchQueue.main`
    /// is a new wrapper of the one queue, so identity says nothing, and reading a queue's label
    /// makes a `String` (an allocation a request).
    var isMainQueue: Bool {
        if case let .queue(queue) = self { return queue.getSpecific(key: Self.mainQueueMark) != nil }
        return false
    }

    private static let mainQueueMark: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// A serial queue for one transfer's handlers, so that progress events stay in order and the
    /// completion comes after the last of them even when the target is a concurrent queue.
    func makeSerialQueue() -> DispatchQueue {
        switch self {
        case let .queue(queue): return DispatchQueue(label: "courier.callbacks", target: queue)
        case .immediate, .driven: return DispatchQueue(label: "courier.callbacks", target: .global())
        }
    }
}
