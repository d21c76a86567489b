import Foundation

extension Network {
    /// Runs a request and hands its response body over as it arrives, chunk by chunk, however
    /// large or long-lived it is: memory stays bounded, and a slow consumer slows the transfer
    /// down rather than filling memory.
    ///
    /// ```swift
    /// network.stream(request, callbackQueue: queue) { response in
    ///     print(response.statusCode, response.headers["Content-Type"] ?? "")
    /// } onData: { chunk in
    ///     file.write(chunk)
    /// } completion: { result in
    ///     if case .failure(let error) = result { print(error) }
    /// }
    /// ```
    ///
    /// The response is validated as for any request (the request's `validate`, run on the head
    /// with an empty body). A refused one (an error status, by default) reaches neither
    /// `onResponse` nor `onData`: `completion` gets the error (``NetworkError/httpStatus(_:)``,
    /// carrying at most the first 1 MiB of the error page).
    ///
    /// **Backpressure.** Courier holds at most 2 MiB of body the consumer has not taken; past
    /// that it stops reading from the network until `onData` catches up (TCP then slows the
    /// server down). On the URLSession engine up to 256 chunks more may wait in the session's
    /// delegate queue, and the other requests of this network wait while the stream waits: give
    /// a slow stream a network of its own there. See <doc:Streaming>.
    ///
    /// The request's `timeout` (60 s by default) bounds the whole stream: give a long-lived one
    /// (server-sent events, a log tail) `.infinity`. Its `output(from:response:)` is not used,
    /// nor ``maximumResponseSize``. Once the head has been handed over, a failure is not retried.
    ///
    /// - Parameters:
    ///   - request: What to send.
    ///   - callbackQueue: Where the handlers run; defaults to the network's ``callbackQueue``.
    ///     They run one at a time, in order, even on a concurrent queue.
    ///   - onResponse: Called once with the accepted head (status, headers, final URL; empty
    ///     body), before any data.
    ///   - onData: Each chunk of the body, in order, never two at once. While it runs, the
    ///     transfer may pause: it is the consumer's pace that counts.
    ///   - completion: Called exactly once, last, after the last `onData`: the head again on
    ///     success, or the error. After a cancel (``NetworkTask/cancel()``) chunks not delivered
    ///     yet are dropped, and `completion` gets ``NetworkError/cancelled``.
    /// - Returns: A handle to cancel the stream.
    @discardableResult @preconcurrency
    public func stream<R: NetworkRequest>(
        _ request: R,
        callbackQueue: DispatchQueue? = nil,
        onResponse: @escaping @Sendable (HTTPResponse) -> Void = { _ in },
        onData: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> NetworkTask {
        let buffer = StreamBuffer()
        let callbacks = StreamCallbacks(buffer: buffer, queue: CallbackTarget.queue(callbackQueue ?? self.callbackQueue).makeSerialQueue(),
                                        onResponse: onResponse, onData: onData, completion: completion)
        let task = core.stream(request, into: buffer, progress: nil)
        callbacks.start(task)
        return task
    }
}

extension NetworkCore {
    /// Creates the transfer for `request`, its body handed to `buffer` as it arrives, and queues
    /// it. The result goes into the buffer too, after the last chunk, from whichever Courier
    /// thread ends the transfer: the consumer of the buffer is the one that delivers it.
    func stream<R: NetworkRequest>(_ request: R, into buffer: StreamBuffer,
                                   progress: (@Sendable (TransferProgress) -> Void)?) -> NetworkTask {
        let request = withCoders(request)
        let baseRequest = prepare(request)
        let terms = RequestTerms(request)
        let body = StreamBody(request: consume request, buffer: buffer) { buffer.end(with: $0) }
        return submit(Transfer(core: self, terms: terms, baseRequest: baseRequest, body: body,
                               delivery: Delivery(target: .immediate, progress: progress)))
    }
}
