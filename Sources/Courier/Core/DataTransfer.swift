import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose response body is collected in memory and turned into `Request.Output`.
///
/// Uses a delegate-based data task: tasks made with a completion handler get no progress
/// callbacks on Linux, and hold the body twice in memory.
final class DataTransfer<Request: NetworkRequest>: Transfer, @unchecked Sendable {
    typealias Completion = (Result<Request.Output, any Error>) -> Void

    private let request: Request
    /// Invoked exactly once (see ``Transfer/claimEnd(as:)``), on the handler queue or target the
    /// caller chose; never concurrently with itself.
    private let completion: UncheckedSendable<Completion>
    private let progress: ProgressReporter?
    /// The temporary file a multipart body is written into, deleted when the transfer ends
    /// (made only for multipart bodies: it costs allocations on every request otherwise).
    private let uploadFile: TemporaryUploadFile?
    private let sizeLimit: Int64

    // Confined to the session's delegate queue; reset for every attempt.
    private var response: HTTPURLResponse?
    private var body = Data()
    /// Set when Courier refused a server's authentication challenge: URLSession then ends the
    /// task as "cancelled", but the response already received is the real outcome.
    private var rejectedChallenge = false

    init(
        core: NetworkCore, request: Request, target: CallbackTarget,
        progress: ((TransferProgress) -> Void)?, completion: @escaping Completion
    ) {
        self.request = request
        self.completion = UncheckedSendable(completion)
        self.progress = progress.map(ProgressReporter.init)
        if case .multipart? = request.body { uploadFile = TemporaryUploadFile() } else { uploadFile = nil }
        self.sizeLimit = core.maximumResponseSize.withLock { $0 }
        super.init(core: core, request: request, target: target, reportsProgress: progress != nil)
    }

    override var startsOffThread: Bool {
        if case .multipart? = request.body { return true }
        return false
    }

    override var uploadsBodyFromFile: Bool {
        switch request.body {
        case .file?, .multipart?: return true
        default: return false
        }
    }

    override func makeSessionTask(in transport: any Transport, for urlRequest: URLRequest) throws -> any TransportTask {
        switch request.body {
        case let .file(url)?:
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw NetworkError.fileSystem(url, CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]))
            }
            return transport.makeUploadTask(with: urlRequest, fromFile: url)
        case let .multipart(form)?:
            guard let uploadFile else { preconditionFailure("init makes the upload file for every multipart body") }
            return transport.makeUploadTask(with: urlRequest, fromFile: try uploadFile.write(form))
        default:
            return transport.makeDataTask(with: urlRequest)
        }
    }

    override func didEnd() {
        uploadFile?.remove()
    }

    override func didReceive(response: URLResponse) {
        self.response = response as? HTTPURLResponse
        body = Data()
        rejectedChallenge = false
        let expected = response.expectedContentLength
        if expected > sizeLimit {
            end(with: .responseTooLarge(sizeLimit))
            return
        }
        // Reserve what the server announced (bounded, in case it lies) to avoid regrowing the buffer.
        if expected > 0 { body.reserveCapacity(Int(min(expected, 64 << 20))) }
    }

    override func didReceive(data: Data) {
        body.append(data)
        if Int64(body.count) > sizeLimit {
            body = Data()
            end(with: .responseTooLarge(sizeLimit))
            return
        }
        reportDownload(force: false)
    }

    override func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        let total = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil
        progress?.update(TransferProgress(completedBytes: totalBytesSent, totalBytes: total, direction: .upload),
                         force: totalBytesSent == total, via: self)
    }

    override func didRejectAuthenticationChallenge() {
        rejectedChallenge = true
    }

    override func didComplete(error: (any Error)?) {
        if error == nil, followPendingRedirect() {
            response = nil
            body = Data()
            return
        }
        var error = error
        if rejectedChallenge, response != nil, (error as? URLError)?.code == .cancelled {
            error = nil
        }
        if error == nil { reportDownload(force: true) }
        let received = response.map { HTTPResponse($0, body: body) }
        response = nil
        body = Data()
        if let received {
            let context = self.context
            core.observers.forEach { $0.didReceive(received, context: context) }
        }
        if let error {
            attemptFailed(NetworkError.from(error), response: received)
            return
        }
        if let redirect = redirectLimitResponse {
            attemptFailed(.tooManyRedirects(received ?? redirect), response: received ?? redirect)
            return
        }
        guard let received else {
            attemptFailed(.transport(URLError(.badServerResponse)), response: nil)
            return
        }
        // Validation and decoding are the caller's code: for a small body they take microseconds
        // and run right here (a hop to another thread would cost more); a large body is handled
        // on the work queue, so that decoding it never holds up other transfers' callbacks.
        if received.body.count <= Self.inlineProcessingLimit {
            process(received)
        } else {
            core.workQueue.async { [self] in process(received) }
        }
    }

    /// Bodies up to this size are validated and decoded on the delegate queue.
    private static var inlineProcessingLimit: Int { 64 << 10 }

    private func process(_ received: HTTPResponse) {
        do {
            try request.validate(received)
        } catch let error as NetworkError {
            attemptFailed(error, response: received)
            return
        } catch {
            // An error of the request's own making: final, and passed on as it is.
            finish(.failure(error))
            return
        }
        finish(Self.output(of: received, for: request))
    }

    override func deliverFailure(_ error: NetworkError, response: HTTPResponse?) {
        deliver(.failure(request.convertError(error, response: response)))
    }

    /// An attempt failed: retry if allowed, else end with the error (passed through `convertError`).
    private func attemptFailed(_ error: NetworkError, response: HTTPResponse?) {
        retryOrGiveUp(after: error, response: response) { [self] in fail(error, response: response) }
    }

    private func finish(_ result: Result<Request.Output, any Error>) {
        guard claimEnd(as: .taskCompleted) else { return }
        deliver(result)
    }

    private func deliver(_ result: Result<Request.Output, any Error>) {
        onHandlerQueue { [self] in
            progress?.markCompletionDelivered()
            completion.value(result)
        }
    }

    private func reportDownload(force: Bool) {
        guard let progress, let response else { return }
        let expected = response.expectedContentLength
        progress.update(
            TransferProgress(completedBytes: Int64(body.count), totalBytes: expected >= 0 ? expected : nil),
            force: force, via: self)
    }

    /// Produces the output of an accepted response, mapping a decoding failure through `convertError`.
    static func output(of response: HTTPResponse, for request: Request) -> Result<Request.Output, any Error> {
        do {
            return .success(try request.output(from: response.body, response: response))
        } catch let error as NetworkError {
            return .failure(request.convertError(error, response: response))
        } catch {
            return .failure(request.convertError(.decodingFailed(error, response), response: response))
        }
    }
}
