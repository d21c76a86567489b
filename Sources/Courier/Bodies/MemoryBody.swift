import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response body collected in memory and turned into the request's `Output`.
///
/// Uses a delegate-based data task: tasks made with a completion handler get no progress
/// callbacks on Linux, and hold the body twice in memory.
final class MemoryBody<Request: NetworkRequest>: TransferBody, @unchecked Sendable {
    // @unchecked: the mutable state below is confined to the session's delegate queue (the
    // transport's events arrive there one at a time); everything else is immutable.
    typealias Output = Request.Output

    private let request: Request
    private let sizeLimit: Int64
    private let upload: RequestUpload

    // Confined to the delegate queue; reset by every response head.
    private var response: HTTPResponse?
    private var received = Data()
    private var rejectedChallenge = false

    init(request: Request, sizeLimit: Int64) {
        self.request = request
        self.sizeLimit = sizeLimit
        self.upload = RequestUpload(request.body)
    }

    var startsOffThread: Bool { upload.startsOffThread }

    var uploadsFromFile: Bool { upload.uploadsFromFile }

    func makeTask(in transport: any Transport, for urlRequest: URLRequest) throws -> any TransportTask {
        try upload.makeTask(in: transport, for: urlRequest)
    }

    func didReceive(head: HTTPResponse) -> BodyStep {
        response = head
        received = Data()
        rejectedChallenge = false
        // The decoded size of a compressed body is unknown: it is checked as it arrives.
        let expected = head.receivedLength ?? 0
        if expected > sizeLimit { return BodyStep(abort: .responseTooLarge(sizeLimit)) }
        // Reserve what the server announced (bounded, in case it lies) to avoid regrowing the buffer.
        if expected > 0 { received.reserveCapacity(Int(min(expected, 64 << 20))) }
        return .proceed
    }

    func didReceive(data: Data) -> BodyStep {
        data.withUnsafeBytes(didReceive(bytes:))
    }

    func didReceive(bytes: UnsafeRawBufferPointer) -> BodyStep {
        received.append(contentsOf: bytes)
        if Int64(received.count) > sizeLimit {
            received = Data()
            return BodyStep(abort: .responseTooLarge(sizeLimit))
        }
        return BodyStep(progress: downloadProgress)
    }

    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) -> BodyStep {
        RequestUpload.progress(sent: totalBytesSent, expected: totalBytesExpectedToSend)
    }

    func didRejectAuthenticationChallenge() {
        rejectedChallenge = true
    }

    func reset() {
        response = nil
        received = Data()
    }

    func didComplete(error: (any Error)?, metrics: TransferMetrics?, redirectLimitHit: HTTPResponse?) -> BodyCompletion<Output> {
        var error = error
        if rejectedChallenge, response != nil, (error as? URLError)?.code == .cancelled {
            error = nil
        }
        let progress = error == nil ? downloadProgress : nil
        var full = response
        response = nil
        full?.body = received
        full?.complete(with: metrics)
        reset()
        var redirectLimitHit = redirectLimitHit
        redirectLimitHit?.complete(with: metrics)
        return BodyCompletion(outcome: outcome(of: full, error: error, redirectLimitHit: redirectLimitHit),
                              progress: progress, observed: full)
    }

    private func outcome(of full: HTTPResponse?, error: (any Error)?, redirectLimitHit: HTTPResponse?) -> AttemptOutcome<Output> {
        if let error { return .failed(NetworkError.from(error), response: full) }
        if let redirect = redirectLimitHit { return .failed(.tooManyRedirects(full ?? redirect), response: full ?? redirect) }
        guard let full else { return .failed(.transport(URLError(.badServerResponse)), response: nil) }
        let request = self.request
        return .judge(bodySize: full.body.count) { Self.judge(full, for: request) }
    }

    /// Runs the request's own `validate` and `output` on a complete response.
    private static func judge(_ response: HTTPResponse, for request: Request) -> AttemptOutcome<Output> {
        do {
            try request.validate(response)
        } catch let error as NetworkError {
            return .failed(error, response: response)
        } catch {
            // An error of the request's own making: final, and passed on as it is.
            return .rejected(error)
        }
        let result = output(of: response, for: request)
        return .accepted { result }
    }

    /// Produces the output of an accepted response, mapping a decoding failure through `convertError`.
    static func output(of response: HTTPResponse, for request: Request) -> Result<Output, any Error> {
        do {
            return .success(try request.output(from: response.body, response: response))
        } catch let error as NetworkError {
            return .failure(request.convertError(error, response: response))
        } catch {
            return .failure(request.convertError(.decodingFailed(error, response), response: response))
        }
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

    private var downloadProgress: TransferProgress? {
        guard let response else { return nil }
        return TransferProgress(completedBytes: Int64(received.count), totalBytes: response.receivedLength)
    }
}
