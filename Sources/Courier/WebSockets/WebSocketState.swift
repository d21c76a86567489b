import Foundation

/// What a socket's callers and its thread share, all under one lock (``WebSocketTask/shared``).
struct WebSocketState {
    /// A frame waiting for the socket's thread, with what to call once it is written (or not).
    struct Outgoing {
        /// The frame as it goes on the wire (masked), or empty when `frame` is to be encoded by
        /// the socket's thread (it may compress it: only that thread holds the deflate context).
        var bytes: [UInt8]
        var frame: WebSocketFrame? = nil
        var completion: WebSocketCompletion
        /// What it counts in ``queuedBytes``.
        var queued: Int
    }

    /// No permessage-deflate on this socket (not offered, or not accepted): a sender encodes and
    /// masks its frame itself. Until the handshake says so, frames go to the socket's thread unencoded.
    var sendsUncompressed = false

    /// Frames sent, not yet taken by the thread.
    var outgoing: [Outgoing] = []
    /// Bytes sent and not yet written (taken or not): bounded by ``WebSocketOptions/maximumQueuedBytes``.
    var queuedBytes = 0
    /// The close the caller asked for, until the thread sends it.
    var closeRequest: (code: WebSocketCloseCode, reason: String)?
    /// Messages waiting for ``WebSocketTask/receive(timeout:)`` or ``WebSocketTask/messages``.
    var inbox: [WebSocketMessage] = []
    var inboxStart = 0
    /// Messages handed to the `onMessage` handler whose call has not returned.
    var inFlight = 0
    /// The most messages that ever waited at once (the backpressure bound, checked by the tests).
    var mostBuffered = 0
    /// Pull consumers waiting for a message or the end.
    var waiters: [UInt64: WebSocketWaiter] = [:]
    var nextWaiter: UInt64 = 0
    /// The end, once there is one: set exactly once, by whichever cause comes first.
    var end: WebSocketEnd?
    /// The handshake's reply and chosen subprotocol, once open.
    var response: HTTPResponse?
    var subprotocol: String?

    var inboxCount: Int { inbox.count - inboxStart }

    mutating func popInbox() -> WebSocketMessage? {
        guard inboxStart < inbox.count else { return nil }
        let message = inbox[inboxStart]
        inboxStart += 1
        if inboxStart == inbox.count {
            inbox.removeAll(keepingCapacity: true)
            inboxStart = 0
        } else if inboxStart >= 64, inboxStart * 2 >= inbox.count {
            inbox.removeFirst(inboxStart)
            inboxStart = 0
        }
        return message
    }
}

/// Who is told that a frame was written, or could not be.
enum WebSocketCompletion {
    case none
    /// The caller's handler, run on the socket's delivery queue.
    case handler(@Sendable ((any Error)?) -> Void)
    /// Courier's own (a blocking or async send): run wherever the outcome is known, at once.
    case direct(@Sendable ((any Error)?) -> Void)
}

/// A pull consumer waiting (``WebSocketTask/receive(timeout:)`` or the async iterator).
enum WebSocketWaiter {
    case semaphore(DispatchSemaphore)
    case continuation(CheckedContinuation<WebSocketMessage?, any Error>)
}
