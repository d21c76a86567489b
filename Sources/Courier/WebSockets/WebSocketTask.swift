import Foundation

/// An open (or opening) WebSocket, made by ``Network/webSocket(_:options:callbackQueue:onOpen:onMessage:onEnd:)``.
///
/// Send with a completion, blocking or with `await`; receive with an `onMessage` handler, with
/// ``receive(timeout:)`` (blocking), or with `for try await message in socket.messages`. Every
/// socket ends exactly once (``WebSocketEnd``), whatever races: your ``close(code:reason:)``, the
/// peer's close, ``cancel()``, a failure. A consumer that does not keep up (``WebSocketOptions/bufferedMessages``
/// waiting) stops Courier reading the socket, so memory stays bounded. See <doc:WebSockets>.
public final class WebSocketTask: Sendable {
    /// The URL the socket was opened to.
    public let url: URL
    /// The options it was opened with.
    public let options: WebSocketOptions

    let shared = Locked(WebSocketState())
    let wakeup = WebSocketWakeup()
    /// Serial, targeting the caller's queue: handlers run there, one at a time, in order.
    let delivery: DispatchQueue
    let onOpen: (@Sendable (HTTPResponse) -> Void)?
    let onMessage: (@Sendable (WebSocketMessage, WebSocketTask) -> Void)?
    let onEnd: (@Sendable (WebSocketEnd) -> Void)?
    /// Whether the handshake offers permessage-deflate: asked for in the options, and zlib loads.
    let offersDeflate: Bool

    init(url: URL, options: WebSocketOptions, callbackQueue: DispatchQueue, onOpen: (@Sendable (HTTPResponse) -> Void)?,
         onMessage: (@Sendable (WebSocketMessage, WebSocketTask) -> Void)?, onEnd: (@Sendable (WebSocketEnd) -> Void)?) {
        self.url = url
        self.options = options
        self.delivery = DispatchQueue(label: "courier.websocket.delivery", target: callbackQueue)
        self.onOpen = onOpen
        self.onMessage = onMessage
        self.onEnd = onEnd
        offersDeflate = options.compression && WebSocketZlib.isAvailable
        shared.withLock { [offersDeflate] in $0.sendsUncompressed = !offersDeflate }
    }

    /// The subprotocol the server chose, once open; `nil` before, or when it chose none.
    public var subprotocol: String? { shared.withLock { $0.subprotocol } }

    /// The server's `101` reply (status and headers), once open.
    public var handshakeResponse: HTTPResponse? { shared.withLock { $0.response } }

    /// How the socket ended, or `nil` while it has not.
    public var end: WebSocketEnd? { shared.withLock { $0.end } }

    // MARK: - Sending

    /// Queues `message` and calls `completion` on the socket's callback queue once it is written
    /// (`nil`), or with the error that stopped it (``WebSocketError/closed`` after the end or a
    /// close, ``WebSocketError/sendBufferFull``, or the socket's failure).
    public func send(_ message: WebSocketMessage, completion: @escaping @Sendable ((any Error)?) -> Void) {
        enqueue(message, .handler(completion))
    }

    /// Sends `message` and waits until it is written; throws what would end the wait (as
    /// ``send(_:completion:)``). Never deadlocks: the socket's thread runs no caller code, so this
    /// may be called anywhere, an `onMessage` handler included; a peer that stops reading ends
    /// it with ``WebSocketError/sendStalled`` after ``WebSocketOptions/sendTimeout``.
    public func sendSynchronously(_ message: WebSocketMessage) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<(any Error)?>(nil)
        enqueue(message, .direct { error in
            outcome.withLock { $0 = error }
            done.signal()
        })
        done.wait()
        if let error = outcome.withLock({ $0 }) { throw error }
    }

    /// Sends `message` and returns once it is written; throws as ``send(_:completion:)`` does.
    public func send(_ message: WebSocketMessage) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enqueue(message, .direct { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            })
        }
    }

    private func enqueue(_ message: WebSocketMessage, _ completion: WebSocketCompletion) {
        let frame: WebSocketFrame
        switch message {
        case let .text(text): frame = WebSocketFrame(opcode: .text, payload: Array(text.utf8))
        case let .binary(data): frame = WebSocketFrame(opcode: .binary, payload: Array(data))
        }
        // Masked here, on the caller's thread: a large message costs the caller, not the socket's
        // thread. Not where permessage-deflate may be in use: the socket's thread compresses, in order.
        let outgoing: WebSocketState.Outgoing
        if shared.withLock({ $0.sendsUncompressed }) {
            let bytes = WebSocketFrameEncoder.encode(frame)
            outgoing = .init(bytes: bytes, completion: completion, queued: bytes.count)
        } else {
            outgoing = .init(bytes: [], frame: frame, completion: completion, queued: frame.payload.count + 14)
        }
        let refusal: WebSocketError? = shared.withLock { state in
            if state.end != nil || state.closeRequest != nil { return .closed }
            if state.queuedBytes > 0, state.queuedBytes + outgoing.queued > options.maximumQueuedBytes { return .sendBufferFull }
            state.outgoing.append(outgoing)
            state.queuedBytes += outgoing.queued
            return nil
        }
        if let refusal { complete(completion, refusal) } else { wakeup.wake() }
    }

    /// Tells a sender how its frame went: its handler on the delivery queue, Courier's own at once.
    func complete(_ completion: WebSocketCompletion, _ error: (any Error)?) {
        switch completion {
        case .none: break
        case let .handler(handler): delivery.async { handler(error) }
        case let .direct(handler): handler(error)
        }
    }

    // MARK: - Receiving

    /// The next message, waiting at most `timeout` seconds (`nil`: as long as it takes); `nil`
    /// once the socket has closed cleanly and every message was taken. Throws the socket's
    /// failure (``WebSocketEnd/failed(_:)``), ``WebSocketError/timedOut(_:)`` when the wait runs out
    /// (the socket stays open), or ``WebSocketError/invalidUse(_:)`` on a socket with an
    /// `onMessage` handler. Safe from any thread: nothing the socket does waits for the caller.
    public func receive(timeout: TimeInterval? = nil) throws -> WebSocketMessage? {
        guard onMessage == nil else { throw WebSocketError.invalidUse("this socket's messages go to its onMessage handler") }
        let deadline = timeout.map { DispatchTime.now() + max(0, $0) } ?? .distantFuture
        let semaphore = DispatchSemaphore(value: 0)
        while true {
            switch takeOrWait(.semaphore(semaphore)) {
            case let .message(message): return message
            case let .ended(end): return try Self.result(of: end)
            case let .waiting(id):
                let timedOut = semaphore.wait(timeout: deadline) == .timedOut
                shared.withLock { _ = $0.waiters.removeValue(forKey: id) }
                if timedOut { throw WebSocketError.timedOut("no message within \(timeout ?? 0) s") }
            }
        }
    }

    /// The messages as they arrive, until the socket closes (the sequence ends) or fails (it
    /// throws). Cancelling the `Task` that iterates cancels the socket. For sockets without an
    /// `onMessage` handler (otherwise the first `next()` throws ``WebSocketError/invalidUse(_:)``).
    public var messages: WebSocketMessages { WebSocketMessages(task: self) }

    func nextMessage() async throws -> WebSocketMessage? {
        guard onMessage == nil else { throw WebSocketError.invalidUse("this socket's messages go to its onMessage handler") }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketMessage?, any Error>) in
                switch takeOrWait(.continuation(continuation)) {
                case let .message(message): continuation.resume(returning: message)
                case let .ended(end): continuation.resume(with: Result { try Self.result(of: end) })
                case .waiting: break   // deliver or finish resumes it
                }
            }
        } onCancel: {
            cancel()
        }
    }

    private enum Take {
        case message(WebSocketMessage)
        case ended(WebSocketEnd)
        case waiting(UInt64)
    }

    /// A waiting message, the end, or `waiter` registered.
    private func takeOrWait(_ waiter: WebSocketWaiter) -> Take {
        let (take, madeRoom) = shared.withLock { state -> (Take, Bool) in
            if let message = state.popInbox() { return (.message(message), state.inboxCount == options.bufferedMessages - 1) }
            if let end = state.end { return (.ended(end), false) }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.waiters[id] = waiter
            return (.waiting(id), false)
        }
        if madeRoom { wakeup.wake() }
        return take
    }

    static func result(of end: WebSocketEnd) throws -> WebSocketMessage? {
        switch end {
        case .closed: return nil
        case let .failed(error): throw error
        }
    }

    /// Whether the thread may read more: fewer than ``WebSocketOptions/bufferedMessages`` wait.
    var hasRoom: Bool {
        shared.withLock { state in
            (onMessage == nil ? state.inboxCount : state.inFlight) < max(1, options.bufferedMessages)
        }
    }

    /// Hands a message to its consumer (from the socket's thread); dropped after the end.
    func deliver(_ message: WebSocketMessage) {
        let resumed = shared.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            guard state.end == nil else { return nil }
            if let onMessage {
                state.inFlight += 1
                state.mostBuffered = max(state.mostBuffered, state.inFlight)
                // Enqueued under the lock, so that no end can be enqueued between the check and this.
                delivery.async { [self] in
                    onMessage(message, self)
                    let madeRoom = shared.withLock { state in
                        state.inFlight -= 1
                        return state.inFlight == max(1, options.bufferedMessages) - 1
                    }
                    if madeRoom { wakeup.wake() }
                }
                return nil
            }
            if let (id, continuation) = state.waiters.lazy.compactMap({ id, waiter -> (UInt64, CheckedContinuation<WebSocketMessage?, any Error>)? in
                if case let .continuation(continuation) = waiter { return (id, continuation) }
                return nil
            }).first {
                state.waiters.removeValue(forKey: id)
                return continuation
            }
            state.inbox.append(message)
            state.mostBuffered = max(state.mostBuffered, state.inboxCount)
            for case let .semaphore(semaphore) in state.waiters.values { semaphore.signal() }
            return nil
        }
        resumed?.resume(returning: message)
    }

    /// Records the handshake's outcome and tells `onOpen` (from the socket's thread).
    func didOpen(_ response: HTTPResponse, subprotocol: String?) {
        shared.withLock { state in
            guard state.end == nil else { return }
            state.response = response
            state.subprotocol = subprotocol
            if let onOpen { delivery.async { onOpen(response) } }
        }
    }

    // MARK: - Ending

    /// Starts the closing handshake: a close frame with `code` and `reason` (cut to 123 bytes)
    /// goes after the messages already sent; the socket ends when the peer answers, or fails
    /// after ``WebSocketOptions/closeTimeout``. A code that may not be sent (1005, 1006, 1015, …)
    /// is sent as 1000. Later calls, and calls after the end, do nothing.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let code = code.isValidOnWire ? code : .normalClosure
        let asked = shared.withLock { state -> Bool in
            guard state.end == nil, state.closeRequest == nil else { return false }
            state.closeRequest = (code, reason)
            return true
        }
        if asked { wakeup.wake() }
    }

    /// Ends the socket at once with ``WebSocketError/cancelled`` (its end event is delivered now);
    /// the thread then sends a close frame (1001) if it can without waiting, and closes the
    /// connection. Does nothing after the end.
    public func cancel() {
        finish(.failed(.cancelled))
    }

    /// Ends the socket with `end` unless it has ended: the one place an end is decided. Fails the
    /// sends still queued, wakes every waiting consumer, and enqueues `onEnd` after every message
    /// already enqueued. Returns whether this call ended it.
    @discardableResult
    func finish(_ end: WebSocketEnd) -> Bool {
        let taken = shared.withLock { state -> (pending: [WebSocketState.Outgoing], waiters: [WebSocketWaiter])? in
            guard state.end == nil else { return nil }
            state.end = end
            let taken = (state.outgoing, Array(state.waiters.values))
            state.outgoing = []
            state.waiters = [:]
            if let onEnd { delivery.async { onEnd(end) } }
            return taken
        }
        guard let taken else { return false }
        wakeup.wake()
        let error: WebSocketError
        switch end {
        case .closed: error = .closed
        case let .failed(failure): error = failure
        }
        for outgoing in taken.pending { complete(outgoing.completion, error) }
        for waiter in taken.waiters {
            switch waiter {
            case let .semaphore(semaphore): semaphore.signal()
            case let .continuation(continuation): continuation.resume(with: Result { try Self.result(of: end) })
            }
        }
        return true
    }

    var hasEnded: Bool { shared.withLock { $0.end != nil } }
}

/// ``WebSocketTask/messages``: every message until the socket closes (then the sequence ends)
/// or fails (then it throws the ``WebSocketError``).
public struct WebSocketMessages: AsyncSequence, Sendable {
    /// The messages' type.
    public typealias Element = WebSocketMessage
    let task: WebSocketTask

    /// Iterates the socket's messages; cancelling the iterating `Task` cancels the socket.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let task: WebSocketTask
        /// The next message, `nil` after a clean close.
        public mutating func next() async throws -> WebSocketMessage? {
            try await task.nextMessage()
        }
    }

    /// An iterator over the socket's messages.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(task: task) }
}
