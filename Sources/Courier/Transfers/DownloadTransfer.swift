import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download streamed to disk through a delegate-based data task, resumable by hand.
///
/// URLSession's own download tasks cannot be used on Linux: their resume data is always `nil`,
/// and they leave `TMPDIR/<UUID>.tmp` behind on every outcome. Here every chunk is appended to
/// `<destination>.partial` on the delegate queue (per-chunk work is one `write`), a sidecar keeps
/// the URL and validator, and a later download sends `Range` + `If-Range` to fetch the rest.
///
/// Outcomes:
/// - complete and valid → `rename(2)` into place, sidecar removed;
/// - cancelled, timed out, connection lost, disk full → partial file and sidecar kept;
/// - error status → the error page is collected in memory (never written to the partial file).
final class DownloadTransfer<Request: NetworkRequest>: Transfer, @unchecked Sendable {
    typealias Completion = (Result<URL, any Error>) -> Void

    private let request: Request
    private let files: DownloadFiles
    private let options: DownloadOptions
    private let completion: UncheckedSendable<Completion>
    private let progress: ProgressReporter?

    /// Set on the start queue when the task is made, read on the delegate queue.
    private let resumeOffset = Locked<Int64>(0)

    /// Where the body is going; confined to the delegate queue.
    private enum Sink {
        /// No response yet.
        case waiting
        /// Appending to the partial file.
        case file(FileHandle)
        /// An unacceptable status: its body is kept in memory for the error.
        case errorBody(HTTPURLResponse, Data)
        /// The server refused the range (`416`, or an unusable `206`): the body is ignored and
        /// the transfer starts over without `Range` once this task completes.
        case restart
    }

    /// Chunks are gathered here and written 1 MB at a time: one `write` per 64 chunks keeps the
    /// delegate queue ahead of libcurl, which on Linux never waits for a slow consumer (the
    /// backlog would pile up in memory).
    private static var writeBlockSize: Int { 1 << 20 }

    /// Guards the partial file's state below: written by the delegate callbacks, and closed by an
    /// early end from whichever thread ended the transfer (not through the delegate queue, where
    /// the close would wait behind up to 256 queued chunks).
    private let fileLock = NSLock()
    private var sink: Sink = .waiting
    private var buffer = Data()
    /// Bytes of the body so far, written or still in `buffer`.
    private var written: Int64 = 0
    private var expectedTotal: Int64?
    private var canResume = false

    init(
        core: NetworkCore, request: Request, destination: URL, options: DownloadOptions, target: CallbackTarget,
        progress: ((TransferProgress) -> Void)?, completion: @escaping Completion
    ) {
        self.request = request
        self.files = DownloadFiles(destination: destination)
        self.options = options
        self.completion = UncheckedSendable(completion)
        self.progress = progress.map(ProgressReporter.init)
        super.init(core: core, request: request, target: target, reportsProgress: progress != nil)
    }

    /// Checks the destination, and asks for the rest of a partial file left by an earlier attempt
    /// when its sidecar says it came from this request's URL.
    override func makeSessionTask(in transport: any Transport, for attemptRequest: URLRequest) throws -> any TransportTask {
        var urlRequest = attemptRequest
        try files.checkDestination(options: options)
        var offset: Int64 = 0
        // A start-over is asked for once (after a refused range); later attempts resume again.
        let startOver = startOverFlag.withLock { flag in
            defer { flag = false }
            return flag
        }
        if options.contains(.noResume) || startOver {
            files.removeResumeState()
        } else if let record = files.loadRecord(), record.url == recordedURL,
                  let size = files.partialSize(), size > 0 {
            urlRequest.setValue("bytes=\(size)-", forHTTPHeaderField: "Range")
            urlRequest.setValue(record.validator, forHTTPHeaderField: "If-Range")
            offset = size
        } else {
            // Bytes of unknown origin cannot be trusted: start clean.
            files.removeResumeState()
        }
        resumeOffset.withLock { $0 = offset }
        return transport.makeDataTask(with: urlRequest)
    }

    /// Set (on the delegate queue) before a restart from byte 0, read when the next task is made.
    private let startOverFlag = Locked(false)

    /// The URL a sidecar records and is matched against: the request's own (with the Network's
    /// defaults), not the one an interceptor or a redirect made of it, which may change every time.
    private var recordedURL: String? { try? baseRequest.get().url?.absoluteString }

    override func didReceive(response: URLResponse) {
        fileLock.lock()
        defer { fileLock.unlock() }
        guard let http = response as? HTTPURLResponse else { return }
        let head = HTTPResponse(http, body: Data())
        let context = self.context
        core.observers.forEach { $0.didReceive(head, context: context) }
        let offset = resumeOffset.withLock { $0 }
        if offset > 0 {
            if http.statusCode == 206, let range = ContentRange(http.value(forHTTPHeaderField: "Content-Range")),
               range.start == offset {
                let rest = http.expectedContentLength
                openPartial(appendingAt: offset, total: range.total ?? (rest >= 0 ? offset + rest : nil), response: http)
                return
            }
            if http.statusCode == 206 || http.statusCode == 416 {
                // A range we did not ask for, or one the server cannot serve: start over.
                sink = .restart
                return
            }
            // Any other status: the server ignored the range or the file changed (If-Range
            // mismatch gives 200). Handled below like a first attempt.
        }
        do {
            try request.validate(head)
        } catch {
            sink = .errorBody(http, Data())
            return
        }
        let length = http.expectedContentLength
        openPartial(appendingAt: 0, total: length >= 0 ? length : nil, response: http)
    }

    override func didReceive(data: Data) {
        fileLock.lock()
        defer { fileLock.unlock() }
        switch sink {
        case let .file(handle):
            buffer.append(data)
            written += Int64(data.count)
            if buffer.count >= Self.writeBlockSize {
                do {
                    try flush(to: handle)
                } catch {
                    end(with: .fileSystem(files.partial, error))
                    return
                }
            }
            reportProgress(force: false)
        case .errorBody(let response, var body):
            // Bounded: an error page is for reading, not for filling memory.
            if body.count < 4 << 20 { body.append(data) }
            sink = .errorBody(response, body)
        case .waiting, .restart:
            break
        }
    }

    override func didComplete(error: (any Error)?) {
        fileLock.lock()
        defer { fileLock.unlock() }
        // A 307/308 of a request with a body, which Courier follows with a new task: the redirect
        // response itself is not the download.
        if error == nil, followPendingRedirect() {
            sink = .waiting
            return
        }
        if case .restart = sink, error == nil {
            sink = .waiting
            startOverFlag.withLock { $0 = true }
            restartSessionTask()
            return
        }
        if case let .file(handle) = sink, error == nil, expectedTotal.map({ $0 == written }) ?? true {
            // Complete: move it into place (after the claim, so a racing cancel cannot leave a
            // renamed file behind a "cancelled" result).
            guard claimEnd(as: .taskCompleted) else { return }
            deliver(moveIntoPlace(handle))
            return
        }
        // Failed attempt: keep what arrived (a retry, or a later call, resumes from it).
        let failure = attemptError(error)
        closePartial()
        retryOrGiveUp(after: failure.error, response: failure.response) { [self] in
            fail(failure.error, response: failure.response)
        }
    }

    /// Ended (cancel, deadline, disk error, a failed last attempt): the partial file, if still
    /// open, is flushed and closed, and its sidecar updated, before the completion runs, so a caller who
    /// downloads again at once finds a consistent partial file. Off the caller's thread (the flush
    /// may write a megabyte), and not through the delegate queue (it would wait behind the chunks
    /// queued there).
    override func deliverFailure(_ error: NetworkError, response: HTTPResponse?) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            fileLock.withLock { closePartial() }
            deliver(.failure(request.convertError(error, response: response)))
        }
    }

    // MARK: - Files (with `fileLock` held)

    private func openPartial(appendingAt offset: Int64, total: Int64?, response: HTTPURLResponse) {
        do {
            if offset == 0 {
                files.removeResumeState()
                guard FileManager.default.createFile(atPath: files.partial.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: files.partial.path])
                }
            }
            let handle = try FileHandle(forWritingTo: files.partial)
            buffer = Data(capacity: Self.writeBlockSize + (64 << 10))
            if offset > 0 {
                // Drop anything past the resumed offset (a write that failed half-way). Not for a
                // file just created empty: on ext4 a truncate makes the later close() start
                // writeback, which cost a cancel 8-36 ms before its completion (measured).
                try handle.truncate(atOffset: UInt64(offset))
            }
            sink = .file(handle)
            written = offset
            expectedTotal = total
            // Resumable only with a validator: without one, "the rest" might belong to another file.
            let validator = response.value(forHTTPHeaderField: "ETag") ?? response.value(forHTTPHeaderField: "Last-Modified")
            if offset == 0, let validator, let url = recordedURL {
                try files.saveRecord(.init(url: url, validator: validator, bytes: 0))
            }
            canResume = offset > 0 || validator != nil
            reportProgress(force: true)
        } catch {
            sink = .waiting
            end(with: .fileSystem(files.partial, error))
        }
    }

    /// Why an attempt that did not produce a complete file failed.
    private func attemptError(_ error: (any Error)?) -> (error: NetworkError, response: HTTPResponse?) {
        if let error { return (NetworkError.from(error), nil) }
        switch sink {
        case let .errorBody(response, body):
            let full = HTTPResponse(response, body: body)
            return (.httpStatus(full), full)
        case .file:
            // Shorter than announced: the connection was cut.
            return (.incompleteBody(URLError(.networkConnectionLost)), nil)
        case .waiting, .restart:
            return (.transport(URLError(.badServerResponse)), nil)
        }
    }

    /// The body is complete: flush, close, and rename it into place.
    private func moveIntoPlace(_ handle: FileHandle) -> Result<URL, any Error> {
        sink = .waiting
        do {
            try flush(to: handle)
            try handle.close()
            try files.moveIntoPlace(options: options)
            reportProgress(force: true)
            return .success(files.destination)
        } catch let error as NetworkError {
            return .failure(request.convertError(error, response: nil))
        } catch {
            return .failure(request.convertError(.fileSystem(files.partial, error), response: nil))
        }
    }

    private func flush(to handle: FileHandle) throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered, closes the partial file, and either records how far it got or
    /// removes it. After a failed write the file is shorter than `written`; the record keeps the
    /// file's real size, which is what a resume asks for.
    private func closePartial() {
        guard case let .file(handle) = sink else { return }
        sink = .waiting
        let flushed = (try? flush(to: handle)) != nil
        buffer = Data()
        try? handle.close()
        if !flushed { written = files.partialSize() ?? 0 }
        if canResume, !options.contains(.noResume),
           var record = files.loadRecord() {
            record.bytes = written
            try? files.saveRecord(record)
        } else {
            files.removeResumeState()
        }
    }

    private func deliver(_ result: Result<URL, any Error>) {
        onHandlerQueue { [self] in
            progress?.markCompletionDelivered()
            completion.value(result)
        }
    }

    private func reportProgress(force: Bool) {
        progress?.update(TransferProgress(completedBytes: written, totalBytes: expectedTotal), force: force, via: self)
    }
}

/// A parsed `Content-Range: bytes START-END/TOTAL` header (`TOTAL` may be `*`).
struct ContentRange: Equatable {
    let start: Int64
    let end: Int64
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0].trimmingCharacters(in: .whitespaces)),
              let end = Int64(bounds[1].trimmingCharacters(in: .whitespaces)), start <= end else { return nil }
        self.start = start
        self.end = end
        self.total = halves[1] == "*" ? nil : Int64(halves[1].trimmingCharacters(in: .whitespaces))
    }
}
