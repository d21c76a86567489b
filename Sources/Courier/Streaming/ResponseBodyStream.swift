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

    /// The body as lines of UTF-8 text (invalid sequences repaired), each without its ending:
    /// `\n` or `\r\n`. A last line without an ending counts too. Lines may be split across
    /// chunks in any way; each is held whole until its end arrives.
    public var lines: Lines {
        Lines(base: self, endings: .lineFeed)
    }

    /// The lines of a ``ResponseBodyStream``.
    public struct Lines: AsyncSequence, Sendable {
        /// A line, without its ending.
        public typealias Element = String

        let base: ResponseBodyStream
        let endings: LineSplitter.Endings

        /// Reads the lines; see ``ResponseBodyStream/lines``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var chunks: ResponseBodyStream.AsyncIterator
            var splitter: LineSplitter
            /// Lines cut from the last chunk and not returned yet.
            var ready: [Data] = []
            var nextReady = 0
            var finished = false

            /// The next line, `nil` after the last one.
            public mutating func next() async throws -> String? {
                try await nextLine().map { String(decoding: $0, as: UTF8.self) }
            }

            /// The next line as bytes.
            mutating func nextLine() async throws -> Data? {
                while true {
                    if nextReady < ready.count {
                        defer { nextReady += 1 }
                        return ready[nextReady]
                    }
                    guard !finished else { return nil }
                    guard let chunk = try await chunks.next() else {
                        finished = true
                        return splitter.finish()
                    }
                    ready = splitter.lines(in: chunk)
                    nextReady = 0
                }
            }
        }

        /// Makes the iterator of the one pass over the lines.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(chunks: base.makeAsyncIterator(), splitter: LineSplitter(endings: endings))
        }
    }
}
