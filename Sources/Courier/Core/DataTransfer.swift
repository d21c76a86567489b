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
    /// Built when the request is scheduled, so a bad URL fails at once, not after a wait in the queue.
    private let urlRequest: Result<URLRequest, NetworkError>
    /// Invoked exactly once (see ``Transfer/claimEnd(as:)``), on the handler queue or target the
    /// caller chose; never concurrently with itself.
    private let completion: UncheckedSendable<Completion>
    private let progress: ProgressReporter?
    /// The temporary file a multipart body is written into, deleted when the transfer ends.
    private let uploadFile = TemporaryUploadFile()

    // Confined to the session's delegate queue.
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
        self.urlRequest = Result { try request.makeURLRequest() }.mapError { error in
            // `makeURLRequest` reports its own problems as NetworkErrors; anything else thrown
            // while building the request means it has no usable URL.
            error as? NetworkError ?? .invalidURL(String(describing: error))
        }
        self.completion = UncheckedSendable(completion)
        self.progress = progress.map(ProgressReporter.init)
        super.init(core: core, timeout: request.timeout, target: target, reportsProgress: progress != nil)
    }

    override var preparationError: NetworkError? {
        if case let .failure(error) = urlRequest { return error }
        return nil
    }

    override func makeSessionTask(in transport: any Transport) throws -> any TransportTask {
        let urlRequest = try urlRequest.get()
        switch request.body {
        case let .file(url)?:
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw NetworkError.fileSystem(url, CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]))
            }
            return transport.makeUploadTask(with: urlRequest, fromFile: url)
        case let .multipart(form)?:
            return transport.makeUploadTask(with: urlRequest, fromFile: try uploadFile.write(form))
        default:
            return transport.makeDataTask(with: urlRequest)
        }
    }

    override func didEnd() {
        uploadFile.remove()
    }

    override func didReceive(response: URLResponse) {
        self.response = response as? HTTPURLResponse
        body = Data()
        // Reserve what the server announced (bounded, in case it lies) to avoid regrowing the buffer.
        let expected = response.expectedContentLength
        if expected > 0 { body.reserveCapacity(Int(min(expected, 64 << 20))) }
    }

    override func didReceive(data: Data) {
        body.append(data)
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
        var error = error
        if rejectedChallenge, response != nil, (error as? URLError)?.code == .cancelled {
            error = nil
        }
        if error == nil { reportDownload(force: true) }
        let partial = response.map { HTTPResponse($0, body: body) }
        body = Data()
        if let error {
            fail(NetworkError.from(error), response: partial)
            return
        }
        guard let received = partial else {
            fail(.transport(URLError(.badServerResponse)), response: nil)
            return
        }
        // Validation and decoding are the caller's code and may be slow: keep them off the
        // delegate queue, which every transfer of this Network shares.
        core.workQueue.async { [self] in
            let result = Self.process(received, for: request)
            guard claimEnd(as: .taskCompleted) else { return }
            deliver(result)
        }
    }

    override func deliverFailure(_ error: NetworkError) {
        deliver(.failure(request.convertError(error, response: nil)))
    }

    private func fail(_ error: NetworkError, response: HTTPResponse?) {
        guard claimEnd(as: .taskCompleted) else { return }
        deliver(.failure(request.convertError(error, response: response)))
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

    /// Validates the response and produces the output, mapping every failure through `convertError`.
    static func process(_ response: HTTPResponse, for request: Request) -> Result<Request.Output, any Error> {
        do {
            try request.validate(response)
        } catch let error as NetworkError {
            return .failure(request.convertError(error, response: response))
        } catch {
            return .failure(error)
        }
        do {
            return .success(try request.output(from: response.body, response: response))
        } catch let error as NetworkError {
            return .failure(request.convertError(error, response: response))
        } catch {
            return .failure(request.convertError(.decodingFailed(error, response), response: response))
        }
    }
}
