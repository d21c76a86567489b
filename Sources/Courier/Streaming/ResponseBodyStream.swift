import Foundation

extension Network {
    /// Runs a request and returns its response head as soon as it arrives, with the body as an
    /// asynchronous sequence of chunks, read as they arrive.
    ///
    /// ```swift
    /// let (response, body) = try await network.bytes(for: request)
    /// print(response.statusCode)
    /// for try await line in body.lines {
    ///     print(line)
    /// }
    /// ```
    ///
    /// The same transfer as ``stream(_:callbackQueue:onResponse:onData:completion:)``: the head is
    /// validated (an error status throws ``NetworkError/httpStatus(_:)`` carrying at most the
    /// first 1 MiB of its body), memory stays bounded whatever the size (at most 2 MiB of body
    /// waits for the loop; past that the transfer pauses until the loop catches up), and the
    /// request's `timeout` bounds the whole stream (give a long-lived one `.infinity`).
    ///
    /// Cancelling the calling `Task` cancels the request (the call or the loop then throws
    /// `CancellationError`), and so does dropping the sequence before its end (leaving the loop
    /// early, say).
    ///
    /// - Returns: The accepted head (status, headers, final URL; empty body) and the body.
    /// - Throws: A ``NetworkError`` (or the request's converted error), or `CancellationError`.
    public func bytes<R: NetworkRequest>(for request: R) async throws -> (HTTPResponse, ResponseBodyStream) {
        try Task.checkCancellation()
        let buffer = StreamBuffer()
        let consumer = StreamConsumer(buffer: buffer, task: core.stream(request, into: buffer, progress: nil))
        let head = try await consumer.head()
        return (head, ResponseBodyStream(consumer: consumer))
    }
}

/// The body of a streamed response (``Network/bytes(for:)``): its chunks, in order, as they
/// arrive. The sequence ends after the last chunk, or throws the transfer's error.
///
/// Iterate it once. Dropping it (with its iterators) before the end cancels the request.
/// ``lines`` reads it as UTF-8 text lines, ``serverSentEvents`` as an event stream.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    let consumer: StreamConsumer

    /// Reads the chunks; see ``ResponseBodyStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: StreamConsumer

        /// The next chunk, `nil` after the last one.
        public mutating func next() async throws -> Data? {
            try await consumer.nextChunk()
        }
    }

    /// Makes the iterator of the one pass over the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }

    /// The longest line ``lines`` accepts by default: 1 MiB.
    public static let defaultMaximumLineLength = 1 << 20

    /// The body as lines of UTF-8 text (invalid sequences repaired), each without its ending:
    /// `\n` or `\r\n`. A last line without an ending counts too. Lines may be split across
    /// chunks in any way; each is held whole until its end arrives, up to
    /// ``defaultMaximumLineLength`` bytes (see ``lines(maximumLength:)``).
    public var lines: Lines {
        lines(maximumLength: Self.defaultMaximumLineLength)
    }

    /// The body as lines, as ``lines``, with a line held up to `maximumLength` bytes (its ending
    /// not counted). A longer line — a server that sends no newline at all, say — ends the
    /// sequence with ``NetworkError/limitExceeded(_:)`` (``LimitExceeded/Kind/lineLength``) and
    /// ends the transfer, so no more bytes come; at most `maximumLength` bytes of it are held.
    ///
    /// ```swift
    /// for try await line in body.lines(maximumLength: 16 << 20) { … }   // log lines up to 16 MiB
    /// ```
    public func lines(maximumLength: Int) -> Lines {
        Lines(base: self, endings: .lineFeed, maximumLength: maximumLength, limitKind: .lineLength)
    }

    /// The lines of a ``ResponseBodyStream``.
    public struct Lines: AsyncSequence, Sendable {
        /// A line, without its ending.
        public typealias Element = String

        let base: ResponseBodyStream
        let endings: LineSplitter.Endings
        let maximumLength: Int
        let limitKind: LimitExceeded.Kind

        /// Reads the lines; see ``ResponseBodyStream/lines``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var chunks: ResponseBodyStream.AsyncIterator
            var splitter: LineSplitter
            /// Lines cut from the last chunk and not returned yet.
            var ready: [Data] = []
            var nextReady = 0
            /// A line past the limit in the last chunk: thrown once the lines before it are out.
            var limitExceeded: NetworkError?
            var finished = false

            /// The next line, `nil` after the last one.
            public mutating func next() async throws -> String? {
                try await nextLine().map { String(decoding: $0, as: UTF8.self) }
            }

            /// The next line as bytes. A line past the maximum length ends the transfer with
            /// ``NetworkError/limitExceeded(_:)``, which this throws.
            mutating func nextLine() async throws -> Data? {
                while true {
                    if nextReady < ready.count {
                        defer { nextReady += 1 }
                        return ready[nextReady]
                    }
                    if let limitExceeded {
                        self.limitExceeded = nil
                        throw limitExceeded
                    }
                    guard !finished else { return nil }
                    guard let chunk = try await chunks.next() else {
                        finished = true
                        return splitter.finish()
                    }
                    let output = splitter.split(chunk)
                    ready = output.lines
                    nextReady = 0
                    if let limitExceeded = output.limitExceeded {
                        // Ends the transfer now, so the bytes stop even while the lines before
                        // the long one are still being read.
                        finished = true
                        self.limitExceeded = chunks.consumer.fail(with: limitExceeded)
                    }
                }
            }

            /// Ends the stream with `error` (the transfer first, so no more bytes come) and
            /// returns it to throw; later calls return `nil`.
            mutating func fail(with error: NetworkError) -> NetworkError {
                finished = true
                ready = []
                limitExceeded = nil
                return chunks.consumer.fail(with: error)
            }
        }

        /// Makes the iterator of the one pass over the lines.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(chunks: base.makeAsyncIterator(),
                          splitter: LineSplitter(endings: endings, maximumLength: maximumLength, limitKind: limitKind))
        }
    }
}
