import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers requests from a closure (a ``StubServer``'s rules), delivering the events as
/// URLSession's delegate would: on the Network's delegate queue, through the registry.
struct StubTransport: Transport {
    let answer: @Sendable (URLRequest) -> StubReply
    let registry: TransferRegistry
    let delegateQueue: DispatchQueue

    /// A stub answers whatever it is given (its rules may match on a GET's body).
    var sendsGETBodies: Bool { true }

    /// A stub has no connection: the transfer's own watch is the only idle limit (``StallWatch``).
    /// A stub's rules read a `URLRequest`, as a caller writes them.
    func makeDataTask(with request: WireRequest, options: TaskOptions) -> any TransportTask {
        StubTask(request: request.urlRequest, bodyFile: nil, transport: self)
    }

    func makeUploadTask(with request: WireRequest, fromFile file: URL, options: TaskOptions) -> any TransportTask {
        StubTask(request: request.urlRequest, bodyFile: file, transport: self)
    }

    /// Every cancelled stub task reports its end on the delegate queue.
    var confirmsCancels: Bool { true }

    func cancel(_ task: any TransportTask) {
        task.cancel()
    }

    /// The failure goes on the delegate queue before the cancel's own report, so it is the one
    /// the transfer hears; the cancel stops every later step of the reply.
    func fail(_ task: any TransportTask, with error: NetworkError) {
        let failing = UncheckedSendable(task)  // a StubTask, Sendable; the existential is not.
        delegateQueue.async { [registry] in registry.complete(failing.value, outcome: .failed(error)) }
        task.cancel()
    }

    func invalidate() {}
}

/// One stubbed request. On `resume()` its reply is picked and delivered on the delegate queue:
/// after its latency, the head, then the body chunk by chunk, then the end. Every wait is an
/// `asyncAfter` on the delegate queue, never a sleep, so it serves other requests meanwhile.
///
/// After a cancel nothing more is delivered (each step checks first), and the cancel itself is
/// confirmed at once, as URLSession's is, which frees a slot the transfer kept for the task.
final class StubTask: TransportTask, Sendable {
    private let request: URLRequest
    /// The file an upload is sent from: read when the request is answered (a multipart form's
    /// temporary file is deleted when the transfer ends).
    private let bodyFile: URL?
    private let transport: StubTransport
    /// Completed or cancelled: nothing more may be delivered.
    private let finished = Locked(false)

    init(request: URLRequest, bodyFile: URL?, transport: StubTransport) {
        self.request = request
        self.bodyFile = bodyFile
        self.transport = transport
    }

    func resume() {
        transport.delegateQueue.async { [self] in
            // Like URLSession's callbacks: a task whose transfer has ended is ignored.
            guard liveTransfer != nil else { return }
            var withBody = request
            if let bodyFile { withBody.httpBody = try? Data(contentsOf: bodyFile) }
            let sent = withBody
            let reply = transport.answer(sent)
            if reply.latency > 0 {
                transport.delegateQueue.asyncAfter(deadline: .now() + reply.latency) { [self] in deliver(reply, for: sent) }
            } else {
                deliver(reply, for: sent)
            }
        }
    }

    var hasCompleted: Bool { finished.current }

    /// Like URLSession's, a cancel is confirmed by a completion report (which frees a draining
    /// slot); it is sent even when the task had just finished by itself, as the transfer may have
    /// started draining it in between.
    func cancel() {
        finished.withLock { $0 = true }
        transport.delegateQueue.async { [self] in transport.registry.taskDidComplete(self) }
    }

    // MARK: - Delivery, on the delegate queue

    /// The transfer the task's events go to, or `nil` once either has ended.
    private var liveTransfer: (any ScheduledTransfer)? {
        finished.current ? nil : transport.registry.transfer(for: self)
    }

    private func deliver(_ reply: StubReply, for sent: URLRequest) {
        guard let transfer = liveTransfer else { return }
        switch reply.kind {
        case .noAnswer:
            return
        case let .failure(error):
            complete(error: error)
        case let .response(response, chunks, interval):
            if let body = sent.httpBody, !body.isEmpty {
                // The request body went out in one piece.
                transfer.didSend(totalBytesSent: Int64(body.count), totalBytesExpectedToSend: Int64(body.count))
            }
            guard let url = sent.url else { return complete(error: URLError(.badServerResponse)) }
            liveTransfer?.didReceive(head: HTTPResponse(statusCode: response.statusCode, headers: Self.headers(of: response), url: url))
            if sent.httpMethod == "HEAD" {
                // A HEAD response has no body, whatever the reply says.
                send([], from: 0, interval: 0)
            } else if let chunks {
                send(chunks, from: 0, interval: interval)
            } else {
                send(response.body)
            }
        }
    }

    /// Delivers a body in one piece, then the end: the path Courier's overhead is measured on.
    private func send(_ body: Data) {
        guard let transfer = liveTransfer else { return }
        if !body.isEmpty { transfer.didReceive(data: body) }
        if liveTransfer != nil { complete(error: nil) }
    }

    /// Delivers `chunks[index...]`, `interval` seconds apart, then the end. Without an interval
    /// all in one go, with no closure made.
    private func send(_ chunks: [Data], from index: Int, interval: TimeInterval) {
        var index = index
        while let transfer = liveTransfer {
            guard index < chunks.count else { return complete(error: nil) }
            if !chunks[index].isEmpty { transfer.didReceive(data: chunks[index]) }
            index += 1
            if interval > 0, index < chunks.count {
                let next = index
                transport.delegateQueue.asyncAfter(deadline: .now() + interval) { [self] in send(chunks, from: next, interval: interval) }
                return
            }
        }
    }

    /// Reports the end, once, its error classified as URLSession's would be (the stub stands in
    /// for a network; its failures come before any head).
    private func complete(error: URLError?) {
        let first = finished.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { transport.registry.complete(self, outcome: URLSessionFailure.outcome(of: error, headReceived: false), metrics: nil) }
    }

    /// The reply's headers, with a `Content-Length` of its body unless it names its framing;
    /// sorted by name, as heads from URLSession are, so that equal answers compare equal. Made
    /// as the one array the head keeps (a dictionary merged and sorted into it took four
    /// allocations an answer).
    private static func headers(of response: StubResponse) -> HTTPHeaders {
        var fields = response.headers.map { (name: $0.key, value: $0.value) }
        let framed = fields.contains { field in
            let name = field.name.lowercased()
            return name == "content-length" || name == "transfer-encoding"
        }
        if !framed { fields.append((name: "Content-Length", value: String(response.body.count))) }
        fields.sort { $0.name.lowercased() < $1.name.lowercased() }
        return HTTPHeaders(fields)
    }
}
