import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response body streamed to disk, resumable by hand.
///
/// URLSession's own download tasks cannot be used on Linux: their resume data is always `nil`,
/// and they leave `TMPDIR/<UUID>.tmp` behind on every outcome. Here every chunk is appended to
/// `<destination>.partial` (per-chunk work is a copy; a `write` per megabyte), a sidecar keeps
/// the URL and validator, and a later download sends `Range` + `If-Range` to fetch the rest.
///
/// Outcomes:
/// - complete and valid → `rename(2)` into place, sidecar removed;
/// - cancelled, timed out, connection lost, disk full → partial file and sidecar kept;
/// - refused by the request's `validate` (an error status, an unexpected media type) → the error
///   page is collected in memory (never written to the partial file) and the error `validate`
///   threw is reported with it.
///
/// A body the server sends content-coded (`Content-Encoding: gzip` although `identity` was asked
/// for) is stored as it arrives. On the curl engine that is as sent, coded (as curl without
/// `--compressed`): a megabyte on the wire stays a megabyte on disk, and its `Content-Length` is
/// held against it. URLSession decodes it whatever was asked (it cannot be turned off), so there
/// it is stored decoded, within ``Network/decompressionLimit``. Either way it is never resumed
/// (no sidecar, nothing kept after a failure): a `Range` over one coding is not safe to append
/// to bytes of another, and decoded bytes are not the ones a `Range` counts.
///
/// A destination that is a device or a FIFO is written directly instead (``DownloadFiles/Start/direct``).
/// How the files are opened, checked and replaced is ``DownloadFiles``' and ``PartialFile``'s business.
///
/// **One lock.** All of the download's own state is in ``FileState`` behind one lock: written by
/// the transport's events (on the engine's event thread), and closed by an early end from whichever
/// thread ended the transfer (not through URLSession's delegate queue, where the close would wait
/// behind up to 256 queued chunks). The request's `validate` and `convertError` run outside it.
final class DownloadBody<Request: NetworkRequest>: TransferBody {
    typealias Output = URL

    private let request: Request
    let completion: @Sendable (Result<URL, any Error>) -> Void
    private let files: DownloadFiles
    private let options: DownloadOptions
    /// The URL a sidecar records and is matched against: the request's own (with the Network's
    /// defaults), not the one an interceptor or a redirect made of it, which may change every time.
    private let recordedURL: String?

    /// Where the body is going.
    private enum Sink {
        /// No response yet (or between tasks).
        case waiting
        /// Appending to the partial file (or writing a device or FIFO directly).
        case file(PartialFile)
        /// A response the request's `validate` refused, with the error it threw: the body is kept
        /// in memory for that error.
        case errorBody(HTTPResponse, Data, refusal: any Error)
        /// The server refused the range (`416`, or an unusable `206`): the body is ignored and
        /// the transfer starts over without `Range` once this task completes.
        case restart
    }

    private struct FileState {
        var sink: Sink = .waiting
        /// Chunks gathered for the next write.
        var buffer = Data()
        /// Bytes of the body so far, written or still in `buffer`.
        var written: Int64 = 0
        var expectedTotal: Int64?
        var canResume = false
        /// Writing to a device or FIFO: nothing to rename, record or resume.
        var writesDirectly = false
        /// How the current attempt writes, decided when its task is made; a `.resume` holds the
        /// open `.partial` file until the response says whether the range is served.
        var start: DownloadFiles.Start = .fresh
        /// Set before a restart from byte 0 (after a refused range); read when the next task is made.
        var startOver = false
        /// Set once the transfer has ended without success: nothing may be opened after that.
        var abandoned = false
    }

    private let state = Locked(FileState())

    /// Chunks are gathered and written 128 KiB at a time: one `write` per 8 chunks of 16 KiB
    /// keeps the delegate queue ahead of URLSession's libcurl, which on Linux never waits for a
    /// slow consumer (the backlog would pile up in memory). Not more: with 1 MiB blocks the
    /// kernel's copy into the page cache took three times the CPU of curl's 8 KiB writes, and the
    /// curl engine downloaded a 1 GiB file at 0.68× (HTTP/1.1) and 0.85× (HTTP/2) of `curl -o`;
    /// with 128 KiB at 1.07× and 1.11×, in the same interleaved rounds (and the URLSession engine
    /// no slower, its peak RSS lower).
    private static var writeBlockSize: Int { 128 << 10 }

    /// Error pages are for reading, not for filling memory.
    private static var errorBodyLimit: Int { 4 << 20 }

    init(request: Request, destination: URL, options: DownloadOptions, recordedURL: String?,
         completion: @escaping @Sendable (Result<URL, any Error>) -> Void) {
        self.request = request
        self.completion = completion
        self.files = DownloadFiles(destination: destination)
        self.options = options
        self.recordedURL = recordedURL
    }

    var startsOffThread: Bool { false }
    var uploadsFromFile: Bool { false }

    /// Checks the destination, and asks for the rest of a partial file left by an earlier attempt
    /// when its sidecar says it came from this request's resource (its URL but for the query,
    /// unless ``DownloadOptions/requireSameURL``).
    ///
    /// The body is asked for as it is stored (`Accept-Encoding: identity`, as curl does without
    /// `--compressed`), unless the request names an encoding itself: a `Range` then counts the
    /// bytes that are written, and the size the server announces is the size that arrives. A
    /// server may compress anyway; see the type's documentation.
    func makeTask(in transport: any Transport, for attemptRequest: WireRequest, options taskOptions: TaskOptions) throws -> any TransportTask {
        var request = attemptRequest
        if !request.has("Accept-Encoding") { request.set("identity", for: "Accept-Encoding") }
        // A start-over is asked for once (after a refused range); later attempts resume again.
        let (startOver, previous) = state.withLock { state in
            defer {
                state.startOver = false
                state.start = .fresh
            }
            return (state.startOver, state.start)
        }
        // A `.partial` file an earlier attempt opened and never used: closed first, so that its
        // lock is not taken for another download's.
        if case let .resume(unused, _) = previous { try? unused.close() }
        let start = try files.prepareAttempt(options: options, allowResume: !startOver, url: recordedURL)
        if case let .resume(file, record) = start {
            request.set("bytes=\(file.sizeAtOpen)-", for: "Range")
            request.set(record.validator, for: "If-Range")
        }
        state.withLock { $0.start = start }
        return transport.makeDataTask(with: request, options: taskOptions)
    }

    func didReceive(head: HTTPResponse) -> BodyStep {
        if case let .resume(file, record) = state.withLock({ $0.start }) {
            let offset = file.sizeAtOpen
            if head.statusCode == 206, !head.isContentCoded,
               let range = ContentRange(head.headers["Content-Range"]), range.start == offset,
               RangeValidator.continues(record, with: head, range: range) {
                return open(resuming: file, total: range.total ?? head.receivedLength.flatMap { Self.total(after: offset, rest: $0) }, head: head)
            }
            if head.statusCode == 206 || head.statusCode == 416 {
                // A range we did not ask for, one of coded bytes (which cannot follow decoded
                // ones), one of another version of the file (a server that ignored `If-Range`),
                // or one the server cannot serve: the partial file is discarded and the same
                // attempt starts over from byte 0, never spliced.
                state.withLock { $0.sink = .restart }
                return BodyStep(observed: head)
            }
            // Any other status: the server ignored the range or the file changed (If-Range
            // mismatch gives 200). Handled below like a first attempt.
        }
        // The request's own code, outside the lock.
        do {
            try request.validate(head)
        } catch {
            state.withLock { $0.sink = .errorBody(head, Data(), refusal: error) }
            return BodyStep(observed: head)
        }
        return open(resuming: nil, total: head.receivedLength, head: head)
    }

    func didReceive(data: Data) -> BodyStep {
        data.withUnsafeBytes(didReceive(bytes:))
    }

    func didReceive(bytes: UnsafeRawBufferPointer) -> BodyStep {
        state.withLock { state in
            switch state.sink {
            case let .file(file):
                state.buffer.append(contentsOf: bytes)
                state.written += Int64(bytes.count)
                if state.buffer.count >= Self.writeBlockSize {
                    do throws(NetworkError) {
                        try Self.flush(&state, to: file)
                    } catch {
                        return BodyStep(abort: error)
                    }
                }
                return BodyStep(progress: Self.progress(of: state))
            case .errorBody(let response, var body, let refusal):
                if body.count < Self.errorBodyLimit { body.append(contentsOf: bytes) }
                state.sink = .errorBody(response, body, refusal: refusal)
                return .proceed
            case .waiting, .restart:
                return .proceed
            }
        }
    }

    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) -> BodyStep { .proceed }

    func didRejectAuthenticationChallenge() {}

    func reset() {
        // Only a redirect (whose body was never the file's) gets here: nothing is open.
        state.withLock { $0.sink = .waiting }
    }

    func didComplete(error: NetworkError?, metrics: TransferMetrics?, redirectLimitHit: HTTPResponse?) -> BodyCompletion {
        state.withLock { state in
            // Whatever ended the task whose body was being ignored (the server closing after a
            // refused range, say): nothing of it is kept, and the attempt goes on from byte 0. A
            // transfer already ended (a cancel, the deadline) does not: the lifecycle ignores it.
            if case .restart = state.sink {
                state.sink = .waiting
                state.startOver = true
                return BodyCompletion(outcome: .startOver)
            }
            if case .file = state.sink, error == nil, state.expectedTotal.map({ $0 == state.written }) ?? true {
                // Complete: moved into place only after the transfer has claimed its end, so a
                // racing cancel cannot leave a renamed file behind a "cancelled" result.
                return BodyCompletion(outcome: .accepted { [self] delivery in delivery.deliver(commit(), to: completion) }, progress: Self.progress(of: state))
            }
            // Failed attempt: keep what arrived (a retry, or a later call, resumes from it).
            let failure = Self.attemptError(error, sink: state.sink, metrics: metrics)
            let wroteToDevice = state.writesDirectly && state.written > 0
            closePartial(&state)
            switch failure {
            case let .failed(error, response):
                // Bytes given to a device or a FIFO cannot be taken back: another attempt would
                // repeat them.
                return BodyCompletion(outcome: .failed(error, response: response, retryable: !wroteToDevice))
            case let .rejected(ownError):
                // An error of the request's own making: final, and passed on as it is (as for
                // an in-memory body).
                return BodyCompletion(outcome: .rejected(ownError))
            }
        }
    }

    /// Ended without success (cancel, deadline, disk error, a failed last attempt): the partial
    /// file, if still open, is flushed and closed, and its sidecar updated, before the completion
    /// runs, so a caller who downloads again at once finds a consistent partial file. Off the
    /// caller's thread (the flush may write a block, 128 KiB). On the default global queue, whose
    /// threads the callbacks already keep alive: a pool with no thread yet (`.userInitiated`, as
    /// this was) starts one inside `async`, and `cancel()` then took 0.2 ms, most of it `clone`.
    ///
    /// Until the file is closed, a new download of the same destination waits for it rather than
    /// being refused as a second writer (``ClosingPartials``).
    func abandon(then deliver: @escaping @Sendable () -> Void) {
        let path = files.partial.path
        ClosingPartials.shared.begin(path)
        DispatchQueue.global().async { [self] in
            state.withLock { state in
                state.abandoned = true
                closePartial(&state)
            }
            ClosingPartials.shared.end(path)
            deliver()
        }
    }

    func release() {}

    func convert(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        request.convertError(error, response: response)
    }

    // MARK: - Files

    /// Starts writing the body: after the bytes of `resumed` (the `.partial` file opened when
    /// the task was made), or else from byte 0 into a new `.partial` file or the device.
    private func open(resuming resumed: PartialFile?, total: Int64?, head: HTTPResponse) -> BodyStep {
        // Resumable only with a validator: without one, "the rest" might belong to another file.
        // And only for bytes stored as sent: a decoded body's offset means nothing to a `Range`.
        let validator = head.isContentCoded ? nil : RangeValidator.validator(of: head)
        return state.withLock { state in
            let start = state.start
            if case .resume = start { state.start = .fresh }   // the open file is now the sink's
            guard !state.abandoned else {
                if case let .resume(unused, _) = start { try? unused.close() }
                return .proceed
            }
            var opened = resumed
            do throws(NetworkError) {
                let file: PartialFile
                let offset: Int64
                if let resumed {
                    // Drop anything past the resumed offset (a write that failed half-way). Not for
                    // a file just created empty: on ext4 a truncate makes the later close() start
                    // writeback, which cost a cancel 8-36 ms before its completion (measured).
                    offset = resumed.sizeAtOpen
                    try resumed.truncate(at: offset)
                    file = resumed
                } else {
                    if case let .resume(unused, _) = start { try? unused.close() }
                    if case .direct = start { state.writesDirectly = true } else { state.writesDirectly = false }
                    offset = 0
                    file = try state.writesDirectly ? files.openDirect() : files.createPartial()
                    opened = file
                }
                state.buffer = Data(capacity: Self.writeBlockSize + (64 << 10))
                state.sink = .file(file)
                state.written = offset
                state.expectedTotal = total
                if offset == 0, !state.writesDirectly, let validator, let url = recordedURL {
                    try files.saveRecord(.init(url: url, validator: validator, bytes: 0, total: total))
                }
                state.canResume = !state.writesDirectly && (offset > 0 || validator != nil)
                return BodyStep(progress: Self.progress(of: state), forceProgress: true, observed: head)
            } catch {
                state.sink = .waiting
                try? opened?.close()
                // A `.partial` file made for this attempt and unusable: leave nothing behind.
                if resumed == nil, opened != nil, !state.writesDirectly { files.removeResumeState() }
                return BodyStep(observed: head, abort: error)
            }
        }
    }

    /// The body is complete: flush, close, and rename it into place.
    private func commit() -> Result<URL, any Error> {
        state.withLock { state -> Result<URL, NetworkError> in
            guard case let .file(file) = state.sink else {
                return .failure(.transport(URLError(.badServerResponse)))
            }
            state.sink = .waiting
            do throws(NetworkError) {
                do throws(NetworkError) {
                    try Self.flush(&state, to: file)
                } catch {
                    try? file.close()
                    throw error
                }
                if state.writesDirectly {
                    try file.close()
                } else {
                    try files.moveIntoPlace(file, options: options)
                }
                return .success(files.destination)
            } catch {
                return .failure(error)
            }
        }
        .mapError { request.convertError($0, response: nil) }
    }

    /// Why an attempt that did not produce a complete file failed.
    private enum AttemptFailure {
        case failed(NetworkError, response: HTTPResponse?)
        /// `validate` threw an error of the request's own making.
        case rejected(any Error)
    }

    /// Why an attempt that did not produce a complete file failed. A refusal by `validate` is
    /// the error it threw, carrying the whole response: it judged the head alone, and the error
    /// page's body has arrived since.
    private static func attemptError(_ error: NetworkError?, sink: Sink, metrics: TransferMetrics?) -> AttemptFailure {
        if let error { return .failed(error, response: nil) }
        switch sink {
        case let .errorBody(response, body, refusal):
            var full = response.adding(metrics)
            full.body = body
            guard let refusal = refusal as? NetworkError else { return .rejected(refusal) }
            return .failed(refusal.carrying(full), response: full)
        case .file:
            // Shorter than announced: the connection was cut.
            let cut = URLError(.networkConnectionLost)
            return .failed(.incompleteBody(metrics.map(cut.carrying) ?? cut), response: nil)
        case .waiting, .restart:
            return .failed(.transport(URLError(.badServerResponse)), response: nil)
        }
    }

    private static func flush(_ state: inout FileState, to file: PartialFile) throws(NetworkError) {
        guard !state.buffer.isEmpty else { return }
        try file.write(state.buffer)
        state.buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered, closes the partial file, and either records how far it got or
    /// removes it. After a failed write the file is shorter than `written`; the record keeps the
    /// file's real size, which is what a resume asks for.
    private func closePartial(_ state: inout FileState) {
        // A `.partial` file opened for a resume whose response never came.
        if case let .resume(unused, _) = state.start {
            state.start = .fresh
            try? unused.close()
        }
        guard case let .file(file) = state.sink else { return }
        state.sink = .waiting
        let flushed = (try? Self.flush(&state, to: file)) != nil
        state.buffer = Data()
        if !flushed { state.written = file.currentSize() ?? 0 }
        try? file.close()
        if state.writesDirectly { return }
        if state.canResume, !options.contains(.noResume), var record = files.loadRecord() {
            record.bytes = state.written
            // The latest bytes came from this URL (perhaps signed anew): the next exact match is with it.
            if let recordedURL { record.url = recordedURL }
            try? files.saveRecord(record)
        } else {
            files.removeResumeState()
        }
    }

    /// The size of the whole file when `rest` bytes follow the `offset` resumed from; unknown
    /// when the sum does not fit (a `Content-Length` near `Int64.max`).
    private static func total(after offset: Int64, rest: Int64) -> Int64? {
        let (sum, overflow) = offset.addingReportingOverflow(rest)
        return overflow ? nil : sum
    }

    private static func progress(of state: FileState) -> TransferProgress {
        TransferProgress(completedBytes: state.written, totalBytes: state.expectedTotal)
    }
}
