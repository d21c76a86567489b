import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on the curl engine: a ``TransportTask`` whose transfer runs on a ``CurlLoop``.
///
/// It turns libcurl's callbacks into the transfer events the URLSession path produces — the
/// final response head, body chunks, bytes sent, completion — and follows the redirects the
/// transfer agrees to, within the same task, as URLSession does. libcurl's own redirect
/// following is off: every redirect is decided by Courier's ``RedirectPolicy``.
final class CurlTask: TransportTask, @unchecked Sendable {
    // @unchecked: everything but `finished` is touched on the loop thread only (configure,
    // callbacks, curlDone); `finished` is behind its lock.
    //
    // The state below is `@exclusivity(unchecked)`: Swift's run-time check of overlapping access
    // (a thread-local lookup and a set insertion per access, about 80 instructions) cannot fail
    // for it. The loop thread alone changes it (`loop` is set before the task is published, and
    // only read after), and no access spans a call that could touch it again (the one `inout`
    // use, `headerLines` in `configure`, hands it to CurlRequestOptions, which never sees the task).

    enum Upload {
        case none
        case data(Data)
        case file(URL)
    }

    private let transport: CurlTransport
    /// The loop the task runs on: the transport's own, or the loop of the blocking caller that
    /// adopted it (``CurlCallerDriver``), set before the task is resumed or published.
    @exclusivity(unchecked) var loop: CurlLoop
    @exclusivity(unchecked) private var request: WireRequest
    /// The limits the core asked for (timeouts, the request's rate limit), kept across the
    /// redirects the task follows.
    private let taskOptions: TaskOptions
    /// The body to send; none once a redirect has turned the request into a GET.
    @exclusivity(unchecked) private var upload: Upload

    /// The easy handle while the task is in the multi handle (loop thread).
    @exclusivity(unchecked) private(set) var easy: OpaquePointer?
    /// The header lines libcurl reads for the current request (shared with the network's other
    /// requests that have the same; see ``CurlHeaderLines``).
    @exclusivity(unchecked) private var headerLines: CurlHeaderLines?
    /// Unchecked for overlapping access, as the rest (above): no access to it calls out of the parser.
    @exclusivity(unchecked) private var parser = ResponseHeadParser()
    /// Whether heads are kept as they arrived (the CLI's `-i`, `-D`): read once here rather than
    /// through the transport's settings for every header line.
    private let keepsHeadBytes: Bool
    /// A `401` (or a proxy's `407`) head held back while libcurl may answer its challenge itself (``LibcurlOptions/authMethods``
    /// other than Basic): libcurl decides only after the header callback has seen the head's end.
    /// Another status line means it did (the head was an interim one, its body skipped, as for a
    /// redirect it follows); body bytes or the transfer's end mean it is the response.
    @exclusivity(unchecked) private var heldHead: ResponseHeadParser.Head?
    /// Where the current response redirects to, when the transfer follows it: its body is skipped.
    @exclusivity(unchecked) private var redirect: WireRequest?
    /// Set when the redirect's body was left unread (``CurlRedirects/bodyEndsWithConnection(_:method:)``).
    @exclusivity(unchecked) private var abandonedRedirectBody = false
    @exclusivity(unchecked) private var uploadOffset = 0
    @exclusivity(unchecked) private var uploadFile: FileHandle?
    /// The reason the current response was refused (a malformed head), reported at the end.
    @exclusivity(unchecked) private var protocolFailure: String?
    /// Whether libcurl decodes the current response's body, which is then content-coded: its
    /// encoded bytes are counted for the transfer's ``DecompressionGuard``.
    @exclusivity(unchecked) private var countsEncodedBytes = false
    /// Whether libcurl decodes this request's body: CurlRequestOptions decided it from the
    /// `Accept-Encoding` it set.
    @exclusivity(unchecked) private var decodesContent = true
    /// The metrics of the redirects followed so far; read at the end of each transfer.
    @exclusivity(unchecked) private var metrics = CurlMetrics()
    /// Whether the current request is https (a TLS handshake is due), for the metrics' phase.
    @exclusivity(unchecked) private var usesTLS = false
    /// Whether the task has handed its transfer a final response head.
    @exclusivity(unchecked) private var headDelivered = false
    /// libcurl's number for the connection, read when the head came (libcurl 8.2.0+).
    @exclusivity(unchecked) private var connectionID: Int64?

    private let finished = Locked(Ending())

    /// Whether the task is over, the error to report when a cancel ends it (``fail(with:)``), the
    /// transfer its events go to until then (``deliverEvents(to:)``), and the slot it keeps
    /// while it drains (``keepUntilEnd(_:)``): one lock for the four. The task routes its own
    /// end (``routesItself``): the registry keeps no entry for it.
    private struct Ending {
        var done = false
        var failure: NetworkError?
        var sink: (any ScheduledTransfer)?
        var drainSlot: SlotRelease?
    }
    /// libcurl's detailed message for a failure (CURLOPT_ERRORBUFFER, CURL_ERROR_SIZE bytes):
    /// "transfer closed with 7 bytes remaining to read" says more than the code's own text.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)

    init(transport: CurlTransport, request: WireRequest, options: TaskOptions, upload: Upload) {
        self.transport = transport
        self.loop = transport.loop
        self.request = request
        self.taskOptions = options
        self.upload = upload
        keepsHeadBytes = transport.settings.connection.keepsHeadBytes
        errorBuffer.initialize(repeating: 0, count: 256)
    }

    deinit {
        errorBuffer.deallocate()
    }

    // MARK: - TransportTask

    func resume() {
        loop.start(self)
    }

    /// Takes effect on the loop thread at once: the handle leaves the multi handle and nothing
    /// more is read or delivered for it.
    func cancel() {
        loop.cancel(self)
    }

    var hasCompleted: Bool { finished.withLock { $0.done } }

    /// Kept, so that the loop thread hands each event to the transfer directly: a registry lookup
    /// per chunk was a lock and a hash of the task.
    func deliverEvents(to transfer: any ScheduledTransfer) {
        finished.withLock { $0.sink = transfer }
    }

    func stopDeliveringEvents() {
        finished.withLock { $0.sink = nil }
    }

    var routesItself: Bool { true }

    func keepUntilEnd(_ slot: SlotRelease) -> Bool {
        finished.withLock { ending -> Bool in
            ending.sink = nil
            guard !ending.done else { return false }
            ending.drainSlot = slot
            return true
        }
    }

    /// The transfer this task's events go to, or `nil` once they go nowhere.
    private var sink: (any ScheduledTransfer)? {
        finished.withLock { $0.sink }
    }

    /// Ends the task as a cancel does, on the loop thread between two of its callbacks, but
    /// reports `error` as its outcome rather than nothing (see ``Transport/fail(_:with:)``).
    func fail(with error: NetworkError) {
        let failing = finished.withLock { ending -> Bool in
            guard !ending.done else { return false }
            ending.failure = error
            return true
        }
        if failing { loop.cancel(self) }
    }

    /// libcurl can pause a transfer: a refused chunk makes the write callback return
    /// `CURL_WRITEFUNC_PAUSE`, and libcurl keeps the chunk and stops reading the socket.
    var canPauseReceiving: Bool { true }

    /// Unpaused on the loop thread, where every call on the handle must be made; libcurl then
    /// delivers the chunk it kept before reading on.
    func resumeReceiving() {
        loop.unpause(self)
    }

    var isFinished: Bool { hasCompleted }

    // MARK: - Loop thread: setting up

    /// Why a transfer could not be set up: a `CURLcode` and what it means here. `option` names
    /// the option libcurl refused (with `libcurlVersion`), when that is what happened.
    struct ConfigurationFailure: Error {
        let code: Int32
        let detail: String
        var option: String? = nil
        var libcurlVersion: String? = nil
    }

    /// Sets the easy handle up for the current request (or `next`, a redirect being followed).
    func configure(_ easy: OpaquePointer, for next: WireRequest? = nil) -> ConfigurationFailure? {
        if let next {
            // A redirect that turned the request into a GET (a POST after 301, 302 or 303) sends
            // no body: the upload belongs to the request it replaced.
            if next.body == nil, next.method == "GET" || next.method == "HEAD", request.method != next.method {
                upload = .none
            }
            request = next
        } else {
            metrics.reset()
        }
        self.easy = easy
        connectionID = nil
        parser = ResponseHeadParser(keepsBytes: keepsHeadBytes)
        connectCodeAtStatusLine = 0
        heldHead = nil
        redirect = nil
        abandonedRedirectBody = false
        protocolFailure = nil
        countsEncodedBytes = false
        errorBuffer[0] = 0
        var options = CurlOptionSetter(easy: easy)
        options.set(Int32(CCURLOPT_ERRORBUFFER), pointer: errorBuffer)
        do {
            try options.check()
            let applied = try CurlRequestOptions.apply(request, upload: upload, options: taskOptions, settings: transport.settings,
                                                       decompresses: taskOptions.decompresses, to: easy,
                                                       headers: &headerLines, headerCache: transport.headerLines,
                                                       context: Unmanaged.passUnretained(self).toOpaque())
            decodesContent = applied.decodes
            usesTLS = applied.usesTLS
            try CurlConnectionOptions.apply(to: easy, usesTLS: usesTLS, settings: transport.settings, rateLimit: taskOptions.rateLimit,
                                            httpVersion: taskOptions.httpVersion)
            // Set after the request's own choice, which it overrides (CurlPassThrough).
            if transport.settings.connection.libcurl.keepsEncodings { decodesContent = false }
            try openUpload()
            return nil
        } catch let failure as ConfigurationFailure {
            return failure
        } catch {
            return ConfigurationFailure(code: Int32(CCURLE_READ_ERROR), detail: "\(error)")
        }
    }

    private func openUpload() throws {
        uploadOffset = 0
        try? uploadFile?.close()
        uploadFile = nil
        guard request.method != "HEAD", case let .file(url) = upload else { return }
        do {
            uploadFile = try FileHandle(forReadingFrom: url)
        } catch {
            throw ConfigurationFailure(code: Int32(CCURLE_READ_ERROR), detail: "cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    // MARK: - Loop thread: libcurl's callbacks

    /// The proxy's status for the tunnel when the current head's status line came (see
    /// ``isTunnelHead()``); only read where heads are kept as received.
    private var connectCodeAtStatusLine = 0

    /// One header line of the response.
    func header(_ line: UnsafeRawBufferPointer) -> Bool {
        let readsTunnelHeads = keepsHeadBytes
        if readsTunnelHeads, line.starts(with: Self.statusLinePrefix) { connectCodeAtStatusLine = connectCode() }
        switch parser.consume(line) {
        case .pending:
            return true
        case let .malformed(reason):
            protocolFailure = reason
            return false   // libcurl ends the transfer with a write error; curlDone reports the reason
        case let .head(head):
            if readsTunnelHeads, isTunnelHead() {
                // The proxy's reply to CONNECT: written before the response, as curl does.
                parser.reopen(after: head)
                return true
            }
            heldHead = nil
            if awaitsAnswerFromLibcurl(head) {
                heldHead = head
                parser.reopen(after: head)
                return true
            }
            return deliver(head)
        }
    }

    /// Whether the head that just ended was the proxy's reply to `CONNECT` (heads are not
    /// suppressed where they are kept: see CurlRequestOptions). libcurl hands each line over
    /// before it reads it, and stores the proxy's status on reading the status line: a status
    /// that changed between the head's first line and its end is the proxy's.
    private func isTunnelHead() -> Bool {
        connectCode() != connectCodeAtStatusLine
    }

    private func connectCode() -> Int {
        var code = 0
        if let easy { _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_HTTP_CONNECTCODE), &code) }
        return code
    }

    private static let statusLinePrefix = Array("HTTP/".utf8)

    /// Whether libcurl may answer this head itself: a `401` (a proxy's `407`) challenge, with an
    /// authentication method libcurl negotiates (Basic sends its credentials at once and answers
    /// nothing); or, while it negotiates, a success that answered its empty first request.
    private func awaitsAnswerFromLibcurl(_ head: ResponseHeadParser.Head) -> Bool {
        let libcurl = transport.settings.connection.libcurl
        if (head.statusCode == 401 && libcurl.negotiatesAuthentication) || (head.statusCode == 407 && libcurl.negotiatesProxyAuthentication) {
            return true
        }
        // A request with a body goes first without it (`Content-Length: 0`) while libcurl
        // negotiates: a success answering that one is followed by the request with the body.
        let negotiates = libcurl.negotiatesAuthentication || libcurl.negotiatesProxyAuthentication
        if case .none = upload { return false }
        return negotiates && head.statusCode < 300 && request.method != "HEAD"
    }

    /// The held `401` turned out to be the response (see ``heldHead``).
    private func deliverHeldHead() {
        guard let head = heldHead else { return }
        heldHead = nil
        parser.settle()
        _ = deliver(head)
    }

    /// An HTTP/0.9 answer (``LibcurlOptions/allowsHTTP09``): libcurl hands its bytes over as the
    /// body without a single header line. The response is a `200` without fields, the status
    /// libcurl itself reports for it; no head bytes, as curl's `-i` writes none.
    private func deliverHTTP09Head() {
        parser.settle()
        _ = deliver(ResponseHeadParser.Head(statusCode: 200, version: "HTTP/0.9", raw: RawHeaderBuilder(capacity: 0).build()))
    }

    /// Hands a final head on; `false` stops the transfer (a redirect whose body is not waited for).
    private func deliver(_ head: ResponseHeadParser.Head) -> Bool {
        if transport.readsConnectionID, let easy { connectionID = CurlMetrics.connectionID(of: easy) }
        didReceive(head)
        // A redirect followed whose body would end only with its connection: stop here
        // (libcurl ends the transfer with a write error, which curlDone takes for the end).
        if redirect != nil, CurlRedirects.bodyEndsWithConnection(head, method: request.method) {
            abandonedRedirectBody = true
            return false
        }
        return true
    }

    /// A final head. Handed on as Courier's own `HTTPResponse`, made straight from the parsed
    /// fields: Foundation's `HTTPURLResponse` (with its header sanitising) cost more than a tenth
    /// of a small request, and the curl engine makes none, not even for a redirect.
    private func didReceive(_ parsed: ResponseHeadParser.Head) {
        let url = request.url
        var head = HTTPResponse(statusCode: parsed.statusCode, headers: HTTPHeaders(raw: parsed.raw), url: url,
                                httpVersion: HTTPVersion(statusLineVersion: parsed.version))
        // The same choice CurlRequestOptions made for CURLOPT_HTTP_CONTENT_DECODING.
        head.decodesContent = decodesContent
        if !parsed.bytes.isEmpty { head.headBytes = Data(parsed.bytes) }
        countsEncodedBytes = head.arrivesDecoded
        let transfer = sink
        if (300...399).contains(parsed.statusCode),
           let proposed = CurlRedirects.proposedRequest(after: head, to: request,
                                                        keepingPOST: transport.settings.connection.libcurl.postRedirects),
           let next = transfer?.redirect(head, to: proposed, from: request) {
            redirect = next
            return
        }
        headDelivered = true
        transfer?.didReceive(head: head)
    }

    /// Body bytes of the response: lent to the transfer for the call (libcurl reuses its buffer),
    /// so that a body that copies them anyway makes the only copy.
    /// Returns `false` when the transfer refused them (a stream with no room): the write
    /// callback then pauses the transfer, and libcurl offers the same bytes again once
    /// ``resumeReceiving()`` has unpaused it.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if heldHead != nil { deliverHeldHead() }
        if !parser.hasHead, redirect == nil, transport.settings.connection.libcurl.allowsHTTP09 { deliverHTTP09Head() }
        guard redirect == nil, parser.hasHead, !bytes.isEmpty,
              let transfer = sink else { return true }
        return transfer.didReceive(bytes: bytes, encodedBytes: countsEncodedBytes ? encodedBytesReceived() : nil) == .accepted
    }

    /// The body bytes libcurl has read off the wire for the current response, before decoding.
    ///
    /// libcurl 8 counts a read only once all it decoded has been written (measured with 8.14.1:
    /// the count stays 0 while the first 16 KiB read inflates to 10 MiB; 7.x counts it first),
    /// so there one receive buffer (libcurl's default and Courier's largest, 16 KiB) is added:
    /// the result is never less than what has arrived, and a bomb still stops within its first
    /// megabytes. (The transfer also bounds it by the response's `Content-Length`.)
    private func encodedBytesReceived() -> Int64? {
        guard let easy else { return nil }
        var count: ccurl_off_t = 0
        guard ccurl_easy_getinfo_offset(easy, Int32(CCURLINFO_SIZE_DOWNLOAD_T), &count) == CCURLE_OK else { return nil }
        return Int64(count) + Self.countLag
    }

    /// How far libcurl's count of encoded bytes may lag what has arrived (see above).
    private static let countLag: Int64 = (CurlFeatures.loaded?.versionNumber ?? 0) >= 0x080000 ? 16 << 10 : 0

    /// Fills libcurl's buffer with the next bytes of the request body; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch upload {
        case .none:
            return 0
        case let .data(data):
            let count = min(buffer.count, data.count - uploadOffset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[uploadOffset..<uploadOffset + count]))
            }
            uploadOffset += count
            return count
        case .file:
            guard let uploadFile else { return 0 }
            let count = systemRead(uploadFile.fileDescriptor, buffer.baseAddress, buffer.count)
            return count < 0 ? Int(CCURL_READFUNC_ABORT) : count
        }
    }

    /// Moves the body back to `offset`, for libcurl to send it again (an authentication round);
    /// `false` when it cannot be.
    func rewind(to offset: Int64) -> Bool {
        switch upload {
        case .none:
            return offset == 0
        case let .data(data):
            guard offset >= 0, offset <= data.count else { return false }
            uploadOffset = Int(offset)
            return true
        case .file:
            guard let uploadFile else { return false }
            return (try? uploadFile.seek(toOffset: UInt64(max(offset, 0)))) != nil
        }
    }

    /// Upload progress (only asked for when there is a body).
    func progress(uploaded: Int64, uploadTotal: Int64) {
        guard uploaded > 0 else { return }
        sink?.didSend(totalBytesSent: uploaded, totalBytesExpectedToSend: uploadTotal)
    }

    // MARK: - Loop thread: the end

    /// libcurl finished the transfer with `code`. Returns the request to follow when the response
    /// was a redirect the transfer agreed to; otherwise the task is over and reports it.
    func curlDone(code: Int32) -> WireRequest? {
        if heldHead != nil { deliverHeldHead() }
        if code == CCURLE_OK || (code == CCURLE_WRITE_ERROR && abandonedRedirectBody), let next = redirect {
            if let easy { metrics.addRedirectHop(of: easy) }
            return next
        }
        if code == CCURLE_OK, !parser.hasHead {
            // libcurl takes a reply that stops inside its head for a success; it is not one.
            complete(code: Int32(CCURLE_WEIRD_SERVER_REPLY), detail: "the server closed the connection before the end of the response head",
                   metrics: readMetrics(succeeded: false))
        } else if let protocolFailure {
            complete(code: Int32(CCURLE_WEIRD_SERVER_REPLY), detail: protocolFailure, metrics: readMetrics(succeeded: false))
        } else {
            // A proxy that refused the tunnel: its status, which its suppressed reply head (see
            // CurlRequestOptions) no longer shows. libcurl 7.88 ends such a transfer with 56,
            // newer ones with 97 (CURLE_PROXY).
            var connectStatus = 0
            if code != CCURLE_OK, let easy {
                _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_HTTP_CONNECTCODE), &connectStatus)
            }
            let tunnelRefused = connectStatus != 0 && !(200...299).contains(connectStatus)
            complete(code: code, detail: errorBuffer[0] == 0 ? nil : String(cString: errorBuffer), connectStatus: connectStatus,
                   metrics: readMetrics(succeeded: code == CCURLE_OK, tunnelRefused: tunnelRefused))
        }
        return nil
    }

    /// The transfer's metrics, read from its handle now that it is over (see ``CurlMetrics``).
    private func readMetrics(succeeded: Bool, tunnelRefused: Bool = false) -> TransferMetrics? {
        guard let easy else { return nil }
        let ending = CurlMetrics.Ending(succeeded: succeeded, hadHead: parser.hasHead, usesTLS: usesTLS, tunnelRefused: tunnelRefused)
        return metrics.metrics(of: easy, ending: ending, unixSocketPath: transport.unixSocketPath,
                               readsConnectionID: transport.readsConnectionID, connectionID: connectionID)
    }

    /// Ends the task with `code` and reports it to its transfer (or, if the transfer has ended
    /// already, frees the slot kept for the task), with the transfer's `metrics`: a failure
    /// classified here, where libcurl's code and message are known (``CurlFailure``).
    func complete(code: Int32, detail: String?, connectStatus: Int = 0, metrics: TransferMetrics? = nil) {
        let connectTimedOut = code == CCURLE_OPERATION_TIMEDOUT && taskOptions.connectTimeout != nil && !hasConnected
        guard let route = markFinished() else { return }
        let outcome: TransportOutcome
        if code == CCURLE_OK {
            outcome = .completed
        } else if connectTimedOut, let seconds = taskOptions.connectTimeout {
            // libcurl's CURLOPT_CONNECTTIMEOUT_MS, which Courier set from the request's own limit.
            outcome = .failed(.timedOut(TimeoutExceeded(kind: .connect, seconds: seconds, url: request.url)))
        } else {
            outcome = .failed(CurlFailure(code: code, detail: detail, url: request.url, connectStatus: connectStatus,
                                          headReceived: headDelivered, metrics: metrics).networkError)
        }
        route.report(outcome, metrics: metrics)
    }

    /// Whether the current handle got as far as a connection (libcurl's connect time is 0 until
    /// then): a timeout before it is the connect timeout's.
    private var hasConnected: Bool {
        guard let easy else { return false }
        var connectMicroseconds: ccurl_off_t = 0
        guard ccurl_easy_getinfo_offset(easy, Int32(CCURLINFO_CONNECT_TIME_T), &connectMicroseconds) == CCURLE_OK else { return true }
        return connectMicroseconds > 0
    }

    /// Ends the task with a transfer that could not be set up (nothing was sent).
    func complete(_ failure: ConfigurationFailure) {
        guard let route = markFinished() else { return }
        let refused = failure.option.map { (option: $0, libcurlVersion: failure.libcurlVersion ?? "?") }
        let error = CurlFailure(code: failure.code, detail: failure.detail, url: request.url, refusedOption: refused).networkError
        route.report(.failed(error), metrics: nil)
    }

    /// The task was cancelled: it is over, and no event follows but the failure it was
    /// cancelled for (``fail(with:)``), if any.
    func markCancelled() {
        guard let route = markFinished() else { return }
        if let failure = route.failure {
            route.report(.failed(failure), metrics: nil)
        } else {
            route.drainSlot?.release()
        }
    }

    /// Where a task's end goes, taken under the task's lock as it ends: its transfer, or the
    /// slot it kept while draining (the transfer has ended), and the failure a cancel was for.
    private struct EndRoute {
        let sink: (any ScheduledTransfer)?
        let drainSlot: SlotRelease?
        let failure: NetworkError?

        /// The transfer hears how the task ended; a task that was draining gives its slot back.
        func report(_ outcome: TransportOutcome, metrics: TransferMetrics?) {
            if let sink { sink.didComplete(outcome, metrics: metrics) }
            drainSlot?.release()
        }
    }

    /// Marks the task over, once: where its end goes, or `nil` if it was over already.
    private func markFinished() -> EndRoute? {
        let route = finished.withLock { ending -> EndRoute? in
            guard !ending.done else { return nil }
            defer { ending.done = true; ending.sink = nil; ending.drainSlot = nil }
            return EndRoute(sink: ending.sink, drainSlot: ending.drainSlot, failure: ending.failure)
        }
        if route != nil {
            easy = nil
            headerLines = nil
            try? uploadFile?.close()
            uploadFile = nil
        }
        return route
    }
}

#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
#endif
