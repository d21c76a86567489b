import Dispatch

/// Where a transfer's progress and completion handlers run.
enum CallbackTarget: Sendable {
    /// On this queue (the public callback APIs).
    case queue(DispatchQueue)
    /// On whichever Courier thread finishes the transfer, with no queue hop. Used only by the
    /// blocking and async bridges, whose handlers merely signal a semaphore or resume a
    /// continuation: that is what lets the blocking call work while the callback queue is blocked.
    case immediate

    /// A serial queue for one transfer's handlers, so that progress events stay in order and the
    /// completion comes after the last of them even when the target is a concurrent queue.
    func makeSerialQueue() -> DispatchQueue {
        switch self {
        case let .queue(queue): return DispatchQueue(label: "courier.callbacks", target: queue)
        case .immediate: return DispatchQueue(label: "courier.callbacks", target: .global())
        }
    }
}
