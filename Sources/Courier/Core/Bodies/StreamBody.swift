import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response body handed to a consumer as it arrives, through a bounded ``StreamBuffer``: the
/// body of ``Network/stream(_:callbackQueue:onResponse:onData:completion:)``,
/// ``Network/bytes(for:)`` and `streamSynchronously`. Its output is the response head.
///
/// The head is checked with the request's `validate` (its body still empty). An accepted head
/// goes to the consumer, then every chunk. A refused one (an error status) never reaches the
/// consumer: its body is kept in memory, up to ``errorBodyLimit`` bytes, and the transfer fails
/// with what `validate` says of the whole response (``NetworkError/httpStatus(_:)`` by default).
///
/// **Backpressure.** When the consumer is behind by the buffer's budget, a chunk is not taken:
/// - on a task that can pause (curl), the chunk is refused (``BodyStep/refused``): libcurl keeps
///   it and stops reading, and the buffer resumes the task once the consumer has caught up;
/// - on a task that cannot (URLSession), this call waits for room, on the delegate queue. That
///   holds up URLSession's thread once 256 callbacks wait (``BoundedDelegateQueue``), and so the
///   socket. Safe because nothing the consumer needs runs on the delegate queue (its handlers
///   run on their own queue, the async and blocking consumers on their own threads), and
///   because every end of the transfer (cancel, deadline) calls ``release()``, which lets the
///   wait go, from a thread that is not the delegate queue. The cost: on URLSession the other
///   requests of the same `Network` wait too (see Courier.docc/Streaming.md).
///
/// Once the head has reached the consumer, a failure is final: a retry would show it a second
/// head and repeat bytes it already has.
final class StreamBody<Request: NetworkRequest>: TransferBody {
    typealias Output = HTTPResponse

    /// Error pages are for reading, not for filling memory.
    static var errorBodyLimit: Int { 1 << 20 }

    private let request: Request
    private let buffer: StreamBuffer
    let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
    private let upload: RequestUpload
    /// Where a producer that cannot pause waits for room: signalled once per refused offer.
    private let room = DispatchSemaphore(value: 0)
    private let signalRoom: @Sendable () -> Void

    /// Where the body of the current response goes.
    private enum Sink {
        /// No response yet (or between tasks).
        case waiting
        /// To the consumer: the head was accepted.
        case consumer(HTTPResponse)
        /// An unacceptable status: its body is kept here for the error.
        case errorBody(HTTPResponse, Data)

        var isWaiting: Bool {
            if case .waiting = self { return true }
            return false
        }
    }

    private struct State {
        var sink: Sink = .waiting
        /// The task of the current attempt, resumed when the buffer has room again.
        var task: (any TransportTask)?
        /// Body bytes handed to the buffer.
        var received: Int64 = 0
        /// A head has gone to the consumer: no retry from now on.
        var headDelivered = false
        var rejectedChallenge = false
    }

    // Events come one at a time from the transport's thread; `task` is set where the task is made,
    // and `release()` may come from any thread: hence a lock, never held while waiting for room.
    private let state = Locked(State())

    init(request: Request, buffer: StreamBuffer, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) {
        self.buffer = buffer
        self.completion = completion
        self.upload = RequestUpload(request.body)
        self.request = request   // after its last read: moved in, not copied
        let room = self.room
        self.signalRoom = { room.signal() }
    }

    var startsOffThread: Bool { upload.startsOffThread }

    var uploadsFromFile: Bool { upload.uploadsFromFile }
    /// A consumer that is behind keeps a chunk waiting (refused, or waited for: see above).
    var mayHoldChunks: Bool { true }

    func makeTask(in transport: any Transport, for request: WireRequest, options: TaskOptions) throws -> any TransportTask {
        let task = try upload.makeTask(in: transport, for: request, options: options)
        state.withLock { $0.task = task }
        return task
    }

    func didReceive(head: HTTPResponse) -> BodyStep {
        // The request's own code, outside the lock.
        let accepted = (try? request.validate(head)) != nil
        state.withLock { state in
            state.sink = accepted ? .consumer(head) : .errorBody(head, Data())
            state.received = 0
            state.rejectedChallenge = false
            if accepted { state.headDelivered = true }
        }
        guard accepted else { return BodyStep(forceProgress: true, observed: head) }
        let buffer = self.buffer
        return BodyStep(progress: progress(received: 0, of: head), forceProgress: true, observed: head,
                        afterObservers: { buffer.deliver(head: head) })
    }

    func didReceive(data: Data) -> BodyStep {
        let (response, task) = state.withLock { state -> (HTTPResponse?, (any TransportTask)?) in
            switch state.sink {
            case let .consumer(response):
                return (response, state.task)
            case .errorBody(let response, var body):
                state.sink = .waiting   // so that appending does not copy the body
                if body.count < Self.errorBodyLimit { body.append(data.prefix(Self.errorBodyLimit - body.count)) }
                state.sink = .errorBody(response, body)
                return (nil, nil)
            case .waiting:
                return (nil, nil)
            }
        }
        guard let response else { return .proceed }
        if let task, task.canPauseReceiving {
            // Any thread may resume the task (the protocol's contract).
            let resumable = UncheckedSendable(task)
            guard buffer.offer(data, whenRoom: { resumable.value.resumeReceiving() }) else { return BodyStep(refused: true) }
        } else {
            // URLSession: no pause. Wait here, on the delegate queue, until the consumer has
            // made room or the transfer has ended (see the type's documentation).
            while !buffer.offer(data, whenRoom: signalRoom) {
                room.wait()
            }
        }
        let received = state.withLock { state -> Int64 in
            state.received += Int64(data.count)
            return state.received
        }
        return BodyStep(progress: progress(received: received, of: response))
    }

    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) -> BodyStep {
        RequestUpload.progress(sent: totalBytesSent, expected: totalBytesExpectedToSend)
    }

    func didRejectAuthenticationChallenge() {
        state.withLock { $0.rejectedChallenge = true }
    }

    func reset() {
        state.withLock { $0.sink = .waiting }
    }

    func didComplete(error: NetworkError?, metrics: TransferMetrics?, redirectLimitHit: HTTPResponse?) -> BodyCompletion {
        let (sink, received, headDelivered, rejectedChallenge) = state.withLock { state in
            defer { state.sink = .waiting }
            return (state.sink, state.received, state.headDelivered, state.rejectedChallenge)
        }
        var error = error
        // URLSession ends a task whose challenge Courier refused as cancelled; the 401 it
        // delivered first is the answer (see the URLSession engine's delegate).
        if rejectedChallenge, case .cancelled? = error, !sink.isWaiting { error = nil }
        if let error {
            return BodyCompletion(outcome: .failed(error, response: nil, retryable: !headDelivered))
        }
        let redirectLimitHit = redirectLimitHit?.adding(metrics)
        switch sink {
        case let .consumer(head):
            if let redirect = redirectLimitHit {
                return BodyCompletion(outcome: .failed(.tooManyRedirects(redirect), response: redirect, retryable: !headDelivered))
            }
            // The completion's response is the head again, now with the transfer's metrics.
            let response = head.adding(metrics)
            return BodyCompletion(outcome: .accepted { [completion] delivery in delivery.deliver(.success(response), to: completion) }, progress: progress(received: received, of: response))
        case let .errorBody(response, body):
            var full = response.adding(metrics)
            full.body = body
            if let redirect = redirectLimitHit {
                return BodyCompletion(outcome: .failed(.tooManyRedirects(redirect), response: full))
            }
            return BodyCompletion(outcome: Self.refusal(of: full, by: request), observed: nil)
        case .waiting:
            return BodyCompletion(outcome: .failed(.transport(URLError(.badServerResponse)), response: nil, retryable: !headDelivered))
        }
    }

    /// Why a response whose head `validate` refused fails, asked again with its body: the
    /// request's own error, or ``NetworkError/httpStatus(_:)`` should it now pass.
    private static func refusal(of response: HTTPResponse, by request: Request) -> AttemptOutcome {
        do {
            try request.validate(response)
            return .failed(.httpStatus(response), response: response)
        } catch let error as NetworkError {
            return .failed(error, response: response)
        } catch {
            return .rejected(error)
        }
    }

    func abandon(then deliver: @escaping @Sendable () -> Void) {
        deliver()
    }

    /// Lets a producer waiting for room go (URLSession), drops whatever comes late, and deletes
    /// a multipart body's temporary file.
    func release() {
        buffer.closeProducer()
        state.withLock { $0.task = nil }
        upload.release()
    }

    func convert(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        request.convertError(error, response: response)
    }

    private func progress(received: Int64, of response: HTTPResponse) -> TransferProgress {
        TransferProgress(completedBytes: received, totalBytes: response.receivedLength)
    }
}
