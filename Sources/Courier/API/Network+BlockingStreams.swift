import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Network {
    /// Runs a request and writes its body to `handle` (stdout, a pipe, a file) as it arrives,
    /// blocking the calling thread until the end; for command-line tools and scripts.
    ///
    /// ```swift
    /// let result = network.streamSynchronously(request, to: .standardOutput)
    /// ```
    ///
    /// Memory stays bounded whatever the size, and a slow reader of the pipe slows the transfer
    /// down (the bytes are written on the calling thread, which takes the next chunk only once the
    /// last is written). The response is validated as for any request: an error status writes
    /// nothing and returns ``NetworkError/httpStatus(_:)`` with at most the first 1 MiB of its body.
    ///
    /// A write that fails ends the request with ``NetworkError/fileSystem(_:_:)`` (the URL is
    /// `/dev/fd/<descriptor>`); a reader that has gone (`EPIPE`) never raises `SIGPIPE`, so the
    /// process is not killed, whatever its handling of that signal.
    ///
    /// The blocking guarantees of ``scheduleSynchronously(_:timeout:progress:)`` hold: no
    /// callback queue or Swift concurrency is needed, and on one of Courier's own threads the
    /// call returns ``NetworkError/wouldDeadlock(_:)`` at once.
    ///
    /// - Parameters:
    ///   - request: What to send. Its `timeout` (60 s by default) bounds the whole transfer.
    ///   - handle: Where the body goes, from its current offset. Not closed.
    ///   - timeout: How long to wait in all, time in the queue included; when it passes the
    ///     request is cancelled and the result is ``NetworkError/timedOut(_:)``. Any value is
    ///     accepted, as for ``scheduleSynchronously(_:timeout:progress:)``.
    ///   - progress: Download progress, on a private serial queue.
    /// - Returns: The response head (status, headers, final URL; empty body), or the error.
    @preconcurrency
    public func streamSynchronously<R: NetworkRequest>(
        _ request: R,
        to handle: FileHandle,
        timeout: TimeInterval? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<HTTPResponse, any Error> {
        streamSynchronously(request, to: handle, timeout: timeout, cancellation: nil, progress: progress)
    }

    /// ``streamSynchronously(_:to:timeout:progress:)`` that `cancellation` can end from another
    /// thread (or a signal: ``CancellationToken/interrupt``); the result is then
    /// ``NetworkError/cancelled``.
    @preconcurrency
    public func streamSynchronously<R: NetworkRequest>(
        _ request: R,
        to handle: FileHandle,
        timeout: TimeInterval? = nil,
        cancellation: CancellationToken?,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<HTTPResponse, any Error> {
        let writer = DescriptorWriter(handle.fileDescriptor)
        return streamSynchronously(request, timeout: timeout, cancellation: cancellation, onData: { chunk in
            do throws(NetworkError) {
                try writer.write(chunk)
            } catch {
                throw request.convertError(error, response: nil)
            }
        }, progress: progress)
    }

    /// Runs a request and hands its body to `onData` on the calling thread as it arrives,
    /// blocking until the end; the general form of ``streamSynchronously(_:to:timeout:progress:)``.
    ///
    /// ```swift
    /// let result = network.streamSynchronously(request) { response in
    ///     print(response.statusCode)
    /// } onData: { chunk in
    ///     try output.write(contentsOf: chunk)
    /// }
    /// ```
    ///
    /// Both closures run on the calling thread, one event at a time, `onResponse` once before any
    /// data (never for a refused status). The next chunk is taken only when `onData` returns, so
    /// a slow `onData` slows the transfer down; at most 2 MiB wait meanwhile. An error thrown by
    /// either closure ends the request (cancelled, or ended with that error when it is a
    /// ``NetworkError``) and is returned as it is.
    ///
    /// - Returns: The response head (status, headers, final URL; empty body), or the error.
    @preconcurrency
    public func streamSynchronously<R: NetworkRequest>(
        _ request: R,
        timeout: TimeInterval? = nil,
        onResponse: (HTTPResponse) throws -> Void = { _ in },
        onData: (Data) throws -> Void,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<HTTPResponse, any Error> {
        streamSynchronously(request, timeout: timeout, cancellation: nil, onResponse: onResponse, onData: onData, progress: progress)
    }

    /// ``streamSynchronously(_:timeout:onResponse:onData:progress:)`` that `cancellation` can end
    /// from another thread (or a signal: ``CancellationToken/interrupt``); the result is then
    /// ``NetworkError/cancelled``, and `onData` is not called again.
    @preconcurrency
    public func streamSynchronously<R: NetworkRequest>(
        _ request: R,
        timeout: TimeInterval? = nil,
        cancellation: CancellationToken?,
        onResponse: (HTTPResponse) throws -> Void = { _ in },
        onData: (Data) throws -> Void,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Result<HTTPResponse, any Error> {
        if let reason = core.deadlockReason() {
            return .failure(request.convertError(.wouldDeadlock(reason), response: nil))
        }
        if cancellation?.isCancelled == true { return .failure(request.convertError(.cancelled, response: nil)) }
        let wait = WaitDeadline(timeout)
        if wait.hasPassed { return .failure(request.convertError(.timedOut(TimeoutExceeded(kind: .blockingCall, seconds: timeout)), response: nil)) }
        let deadline = wait.time
        let buffer = StreamBuffer()
        let task = core.stream(request, into: buffer, progress: progress)
        let held = cancellation?.hold(task)
        defer { cancellation?.release(held) }
        let ready = DispatchSemaphore(value: 0)
        // The request is being ended by this loop (deadline, or a closure threw): what is still
        // in the buffer is not delivered.
        var ending = false
        var thrown: (any Error)?

        func end(with error: NetworkError) {
            ending = true
            task.transfer.end(with: error)
        }
        func endWaiting() {
            end(with: .timedOut(TimeoutExceeded(kind: .blockingCall, seconds: timeout)))
        }

        while true {
            if !ending, deadline != .distantFuture, DispatchTime.now() >= deadline { endWaiting() }
            // A signal left by an earlier wait only costs one more turn of the loop.
            guard let event = buffer.take(whenReady: { ready.signal() }) else {
                if ending {
                    ready.wait()
                } else if ready.wait(timeout: deadline) == .timedOut {
                    endWaiting()
                }
                continue
            }
            do {
                switch event {
                case let .head(head):
                    if !ending { try onResponse(head) }
                case let .chunk(chunk):
                    if !ending, !task.isCancelled { try onData(chunk) }
                case let .end(result):
                    return thrown.map { .failure($0) } ?? result
                }
            } catch {
                thrown = error
                if let networkError = error as? NetworkError { end(with: networkError) } else { end(with: .cancelled) }
            }
        }
    }
}

/// Writes to a file descriptor the caller owns; a pipe or socket whose reader has gone fails
/// the write with `EPIPE` rather than raising `SIGPIPE` (see ``PartialFile/withoutSIGPIPE(_:_:)``).
struct DescriptorWriter {
    let descriptor: Int32
    /// A pipe or a socket, whose reader may go away.
    private let mayBreak: Bool

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
        var status = stat()
        let type = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : 0
        mayBreak = type == S_IFIFO || type == S_IFSOCK
        #if canImport(Darwin)
        if mayBreak { _ = fcntl(descriptor, F_SETNOSIGPIPE, 1) }
        #endif
    }

    func write(_ data: Data) throws(NetworkError) {
        let descriptor = self.descriptor
        if let failure = PartialFile.withoutSIGPIPE(mayBreak, { PartialFile.writeAll(data, to: descriptor) }) {
            throw .fileSystem(URL(fileURLWithPath: "/dev/fd/\(descriptor)"), failure)
        }
    }
}
