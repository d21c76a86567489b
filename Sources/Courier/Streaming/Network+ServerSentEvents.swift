import Foundation

extension ResponseBodyStream {
    /// The body read as a `text/event-stream` (server-sent events): each event as the
    /// WHATWG rules dispatch it (see ``ServerSentEvent``). Comments are skipped, and an event the
    /// stream ends in the middle of is discarded.
    ///
    /// ```swift
    /// var request = Request<Data>.get(feedURL, headers: ["Accept": "text/event-stream"])
    /// request.timeout = .infinity
    /// let (_, body) = try await network.bytes(for: request)
    /// for try await event in body.serverSentEvents where event.type == "update" {
    ///     print(event.data)
    /// }
    /// ```
    ///
    /// The response's `Content-Type` is not checked: set the request's `acceptedContentTypes`
    /// to `["text/event-stream"]` to refuse anything else.
    public var serverSentEvents: ServerSentEvents {
        ServerSentEvents(base: self)
    }

    /// The events of a ``ResponseBodyStream`` read as an event stream.
    public struct ServerSentEvents: AsyncSequence, Sendable {
        /// An event.
        public typealias Element = ServerSentEvent

        let base: ResponseBodyStream

        /// Reads the events; see ``ResponseBodyStream/serverSentEvents``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var lines: Lines.AsyncIterator
            var parser = ServerSentEventParser()

            /// The next event, `nil` once the stream has ended.
            public mutating func next() async throws -> ServerSentEvent? {
                while let line = try await lines.nextLine() {
                    if let event = parser.consume(Substring(String(decoding: line, as: UTF8.self))) { return event }
                }
                return nil
            }
        }

        /// Makes the iterator of the one pass over the events.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(lines: Lines(base: base, endings: .any).makeAsyncIterator())
        }
    }
}

extension Network {
    /// Runs a request whose response is a `text/event-stream` and hands over each server-sent
    /// event as it is dispatched; the callback form of ``ResponseBodyStream/serverSentEvents``,
    /// over ``stream(_:callbackQueue:onResponse:onData:completion:)`` (same validation,
    /// backpressure, ordering and exactly-once completion).
    ///
    /// Give the request a `timeout` of `.infinity` for a feed that stays open. Courier does not
    /// reconnect by itself: the last event's ``ServerSentEvent/lastEventID`` and
    /// ``ServerSentEvent/retry`` say how to.
    ///
    /// - Parameters:
    ///   - request: What to send.
    ///   - callbackQueue: Where the handlers run, one at a time, in order; defaults to the
    ///     network's ``callbackQueue``.
    ///   - onResponse: Called once with the accepted head, before any event.
    ///   - onEvent: Each event, in order.
    ///   - completion: Called exactly once, last.
    /// - Returns: A handle to cancel the stream.
    @discardableResult @preconcurrency
    public func streamServerSentEvents<R: NetworkRequest>(
        _ request: R,
        callbackQueue: DispatchQueue? = nil,
        onResponse: @escaping @Sendable (HTTPResponse) -> Void = { _ in },
        onEvent: @escaping @Sendable (ServerSentEvent) -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> NetworkTask {
        // onData runs one chunk at a time, so the lock is never contended; it keeps the
        // decoder's state safe to reach from the handler queue's threads.
        let decoder = Locked(ServerSentEventDecoder())
        return stream(request, callbackQueue: callbackQueue, onResponse: onResponse, onData: { chunk in
            for event in decoder.withLock({ $0.events(in: chunk) }) { onEvent(event) }
        }, completion: completion)
    }
}
