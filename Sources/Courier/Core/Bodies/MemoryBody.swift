import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response body collected in memory and turned into the request's `Output`.
///
/// Uses a delegate-based data task: tasks made with a completion handler get no progress
/// callbacks on Linux, and hold the body twice in memory.
final class MemoryBody<Request: NetworkRequest>: TransferBody {
    typealias Output = Request.Output

    private let request: Request
    private let sizeLimit: Int64
    private let upload: RequestUpload
    let completion: @Sendable (Result<Output, any Error>) -> Void

    // The transport's events arrive one at a time, so this lock is never contended: it costs a
    // few nanoseconds an event and makes the body's thread-safety the compiler's to check.
    private let state = Locked(ReceivedBody())

    init(request: Request, sizeLimit: Int64, completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        self.sizeLimit = sizeLimit
        self.upload = RequestUpload(request.body)
        self.completion = completion
        self.request = request   // last, after its last read: moved in, not copied
    }

    var startsOffThread: Bool { upload.startsOffThread }

    var uploadsFromFile: Bool { upload.uploadsFromFile }

    var usesCache: Bool { true }

    func makeTask(in transport: any Transport, for request: WireRequest, options: TaskOptions) throws -> any TransportTask {
        try upload.makeTask(in: transport, for: request, options: options)
    }

    func didReceive(head: HTTPResponse) -> BodyStep {
        // The decoded size of a compressed body is unknown: it is checked as it arrives.
        let total = head.receivedLength
        let expected = total ?? 0
        if expected > sizeLimit { return BodyStep(abort: .responseTooLarge(sizeLimit)) }
        // The buffer is reserved when the first bytes come (see `append`), not here: a body that
        // comes as one `Data` is kept as it is, with no buffer of its own.
        state.withLock { $0 = ReceivedBody(response: head, totalBytes: total) }
        return .proceed
    }

    func didReceive(data: Data) -> BodyStep {
        let sizeLimit = self.sizeLimit
        return state.withLock { state in
            // The whole body in one chunk (URLSession's and the stub's usual way with a small
            // body): kept as it came, sharing its storage, rather than copied into a buffer of
            // our own (two allocations and a copy a request).
            if state.body.isEmpty, data.startIndex == 0, let total = state.totalBytes, Int64(data.count) == total, total <= sizeLimit {
                state.body = data
                return BodyStep(progress: state.progress)
            }
            return data.withUnsafeBytes { Self.append($0, to: &state, sizeLimit: sizeLimit) }
        }
    }

    func didReceive(bytes: UnsafeRawBufferPointer) -> BodyStep {
        let sizeLimit = self.sizeLimit
        return state.withLock { Self.append(bytes, to: &$0, sizeLimit: sizeLimit) }
    }

    private static func append(_ bytes: UnsafeRawBufferPointer, to state: inout ReceivedBody, sizeLimit: Int64) -> BodyStep {
        if state.body.isEmpty, let total = state.totalBytes, total > 0 {
            // Reserve what the server announced (bounded, in case it lies) to avoid regrowing the buffer.
            state.body.reserveCapacity(Int(min(total, 64 << 20)))
        }
        state.body.append(contentsOf: bytes)
        guard Int64(state.body.count) <= sizeLimit else {
            state.body = Data()
            return BodyStep(abort: .responseTooLarge(sizeLimit))
        }
        return BodyStep(progress: state.progress)
    }

    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) -> BodyStep {
        RequestUpload.progress(sent: totalBytesSent, expected: totalBytesExpectedToSend)
    }

    func didRejectAuthenticationChallenge() {
        state.withLock { $0.rejectedChallenge = true }
    }

    func reset() {
        state.withLock { $0 = ReceivedBody() }
    }

    func didComplete(error: NetworkError?, metrics: TransferMetrics?, redirectLimitHit: HTTPResponse?) -> BodyCompletion {
        // Moved out, not copied: the response and its body change hands without a retain each.
        let received = state.withLock { state in
            var taken = ReceivedBody()
            swap(&taken, &state)
            return taken
        }
        var error = error
        if received.rejectedChallenge, received.response != nil, case .cancelled? = error {
            error = nil
        }
        var full = received.response
        full?.body = received.body
        full?.add(metrics)
        var redirectLimitHit = redirectLimitHit
        redirectLimitHit?.add(metrics)
        return BodyCompletion(outcome: outcome(of: full, error: error, redirectLimitHit: redirectLimitHit),
                              progress: error == nil ? received.progress : nil, observed: full)
    }

    private func outcome(of full: HTTPResponse?, error: NetworkError?, redirectLimitHit: HTTPResponse?) -> AttemptOutcome {
        if let error { return .failed(error, response: full) }
        if let redirect = redirectLimitHit { return .failed(.tooManyRedirects(full ?? redirect), response: full ?? redirect) }
        guard let full else { return .failed(.transport(URLError(.badServerResponse)), response: nil) }
        // The response waits in the body, and the closure captures the body alone: Swift then
        // uses the object itself as the closure's context (capturing the response beside it cost
        // an allocation a request, and a copy of the request retained each of its parts again).
        let size = full.body.count
        state.withLock { $0.awaitingJudgement = full }
        return .judge(bodySize: size) { [self] in judgeAwaitingResponse() }
    }

    private func judgeAwaitingResponse() -> AttemptOutcome {
        // Always there: set just before the one closure that gets here is made, and taken once.
        guard let response = state.withLock({ $0.awaitingJudgement.take() }) else {
            return .failed(.transport(URLError(.badServerResponse)), response: nil)
        }
        do {
            try request.validate(response)
        } catch let error as NetworkError {
            return .failed(error, response: response)
        } catch {
            // An error of the request's own making: final, and passed on as it is.
            return .rejected(error)
        }
        // Accepted: the output is made when the transfer has claimed its end (``commit(through:)``),
        // on the same thread. The response waits in the body again, so that the closure captures
        // the body alone and costs no allocation.
        state.withLock { $0.accepted = response }
        return .accepted { [self] delivery in commit(through: delivery) }
    }

    /// Makes the output of the accepted response and delivers it: the output, or the decoding
    /// failure through `convertError`. (Made and delivered in this one function: each function a
    /// generic result passes through looks its type up at run time; see Performance.md.)
    private func commit(through delivery: Delivery) {
        let result: Result<Output, any Error>
        if let response = state.withLock({ $0.accepted.take() }) {
            do {
                result = .success(try request.output(from: response.body, response: response))
            } catch let error as NetworkError {
                result = .failure(request.convertError(error, response: response))
            } catch {
                result = .failure(request.convertError(.decodingFailed(error, response), response: response))
            }
        } else {
            // Never: the response is set just before the one closure that gets here is made.
            result = .failure(convert(.transport(URLError(.badServerResponse)), response: nil))
        }
        delivery.deliver(result, to: completion)
    }

    func abandon(then deliver: @escaping @Sendable () -> Void) {
        deliver()
    }

    func release() {
        upload.release()
    }

    func convert(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        request.convertError(error, response: response)
    }
}

/// What a memory body's current task has received; reset by every response head.
///
/// Outside `MemoryBody` on purpose: nested in the generic class it would be generic too, and its
/// metadata was looked up at run time on every event (about 330 instructions each, seven times a
/// request).
private struct ReceivedBody {
    var response: HTTPResponse?
    var body = Data()
    var rejectedChallenge = false
    /// The complete response, from the task's end until the request's own code judges it.
    var awaitingJudgement: HTTPResponse?
    /// The response `validate` accepted, from its judgement until its output is made.
    var accepted: HTTPResponse?
    /// The head's `receivedLength`, read once: it looks `Content-Length` up among the headers.
    private(set) var totalBytes: Int64?

    init(response: HTTPResponse? = nil, totalBytes: Int64? = nil) {
        self.response = response
        self.totalBytes = totalBytes
    }

    var progress: TransferProgress? {
        guard response != nil else { return nil }
        return TransferProgress(completedBytes: Int64(body.count), totalBytes: totalBytes)
    }
}
