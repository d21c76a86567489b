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
    ///
    /// An event is held up to ``defaultMaximumEventSize`` bytes until it is dispatched (see
    /// ``serverSentEvents(maximumEventSize:)``).
    public var serverSentEvents: ServerSentEvents {
        serverSentEvents(maximumEventSize: Self.defaultMaximumEventSize)
    }

    /// The largest server-sent event accepted by default: 1 MiB.
    public static let defaultMaximumEventSize = 1 << 20

    /// The body read as server-sent events, as ``serverSentEvents``, each event held up to
    /// `maximumEventSize` bytes (its data and type; any one line of it too) until the empty line
    /// that dispatches it. A larger one — a server that never sends that empty line, or a
    /// line without an end — ends the sequence with ``NetworkError/limitExceeded(_:)``
    /// (``LimitExceeded/Kind/eventSize``) and ends the transfer, so no more bytes come.
    /// Comments (`: keep-alive`) hold nothing, however many come between events.
    ///
    /// ```swift
    /// for try await event in body.serverSentEvents(maximumEventSize: 8 << 20) { … }
    /// ```
    public func serverSentEvents(maximumEventSize: Int) -> ServerSentEvents {
        ServerSentEvents(base: self, maximumEventSize: maximumEventSize)
    }

    /// The events of a ``ResponseBodyStream`` read as an event stream.
    public struct ServerSentEvents: AsyncSequence, Sendable {
        /// An event.
        public typealias Element = ServerSentEvent

        let base: ResponseBodyStream
        let maximumEventSize: Int

        /// Reads the events; see ``ResponseBodyStream/serverSentEvents``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var lines: Lines.AsyncIterator
            var parser: ServerSentEventParser

            /// The next event, `nil` once the stream has ended.
            public mutating func next() async throws -> ServerSentEvent? {
                while let line = try await lines.nextLine() {
                    do {
                        if let event = try parser.consume(Substring(String(decoding: line, as: UTF8.self))) { return event }
                    } catch {
                        throw lines.fail(with: error)
                    }
                }
                return nil
            }
        }

        /// Makes the iterator of the one pass over the events.
        public func makeAsyncIterator() -> AsyncIterator {
            let lines = Lines(base: base, endings: .any, maximumLength: maximumEventSize, limitKind: .eventSize)
            return AsyncIterator(lines: lines.makeAsyncIterator(), parser: ServerSentEventParser(maximumEventSize: maximumEventSize))
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
    ///   - maximumEventSize: The most bytes an event (its data and type, and any one line) may
    ///     gather before it is dispatched; a larger one ends the stream with
    ///     ``NetworkError/limitExceeded(_:)`` and no more bytes are read. Default: 1 MiB
    ///     (``ResponseBodyStream/defaultMaximumEventSize``).
    ///   - onResponse: Called once with the accepted head, before any event.
    ///   - onEvent: Each event, in order.
    ///   - completion: Called exactly once, last.
    /// - Returns: A handle to cancel the stream.
    @discardableResult @preconcurrency
    public func streamServerSentEvents<R: NetworkRequest>(
        _ request: R,
        callbackQueue: DispatchQueue? = nil,
        maximumEventSize: Int = ResponseBodyStream.defaultMaximumEventSize,
        onResponse: @escaping @Sendable (HTTPResponse) -> Void = { _ in },
        onEvent: @escaping @Sendable (ServerSentEvent) -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> NetworkTask {
        // onData runs one chunk at a time, so the lock is never contended; it keeps the
        // decoder's state safe to reach from the handler queue's threads. `failure` is set once
        // an event passed its limit: later chunks are ignored, and the completion reports it
        // even if the transfer had already ended by itself.
        let decoder = Locked(ServerSentEventDecoder(maximumEventSize: maximumEventSize))
        let failure = Locked<NetworkError?>(nil)
        let task = Locked<NetworkTask?>(nil)
        let buffer = StreamBuffer()
        let callbacks = StreamCallbacks(
            buffer: buffer, queue: CallbackTarget.queue(callbackQueue ?? self.callbackQueue).makeSerialQueue(),
            onResponse: onResponse,
            onData: { chunk in
                guard failure.current == nil else { return }
                let (events, limit) = decoder.withLock { $0.decode(chunk) }
                if let limit {
                    failure.withLock { $0 = limit }
                    task.current?.transfer.end(with: limit)   // no more bytes
                }
                for event in events { onEvent(event) }
            },
            completion: { result in
                guard let limit = failure.current else { return completion(result) }
                completion(.failure(request.convertError(limit, response: nil)))
            })
        let started = core.stream(request, into: buffer, progress: nil)
        // Set before the callbacks start: onData cannot run before.
        task.withLock { $0 = started }
        callbacks.start(started)
        return started
    }
}
