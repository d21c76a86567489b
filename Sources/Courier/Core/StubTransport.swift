import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A canned answer for a stub ``Network`` (see ``Network/init(stub:callbackQueue:maximumConcurrentRequests:)``).
public struct StubResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response header fields.
    public var headers: [String: String]
    /// The response body.
    public var body: Data

    /// Creates a canned answer.
    public init(statusCode: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}

extension Network {
    /// A network that answers every request with `respond` instead of sending it, for tests of
    /// code built on Courier and for measuring Courier's own overhead.
    ///
    /// Everything else is real: the request is built, queued behind the concurrency limit,
    /// given a deadline, validated and decoded, and its completion delivered exactly once on the
    /// callback queue, exactly as with a URLSession. `respond` runs on Courier's delegate queue:
    /// keep it quick and non-blocking.
    public convenience init(
        stub respond: @escaping @Sendable (URLRequest) -> StubResponse,
        callbackQueue: DispatchQueue = .main,
        maximumConcurrentRequests: Int = 6
    ) {
        self.init(core: NetworkCore(maximumConcurrentRequests: maximumConcurrentRequests) { registry, delegateQueue in
            StubTransport(respond: respond, registry: registry, delegateQueue: delegateQueue)
        }, callbackQueue: callbackQueue)
    }
}

/// Answers requests from a closure, delivering the events as URLSession's delegate would.
struct StubTransport: Transport {
    let respond: @Sendable (URLRequest) -> StubResponse
    let registry: TransferRegistry
    let delegateQueue: DispatchQueue

    func makeDataTask(with request: URLRequest) -> any TransportTask {
        StubTask(request: request, transport: self)
    }

    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask {
        StubTask(request: request, transport: self)
    }

    func invalidate() {}
}

/// One stubbed request: on `resume()` its whole answer is delivered on the delegate queue.
final class StubTask: TransportTask, @unchecked Sendable {
    private let request: URLRequest
    private let transport: StubTransport

    init(request: URLRequest, transport: StubTransport) {
        self.request = request
        self.transport = transport
    }

    func resume() {
        transport.delegateQueue.async { [self] in
            let registry = transport.registry
            // Like URLSession's callbacks: a task whose transfer has ended is ignored.
            guard let transfer = registry.transfer(for: self), let url = request.url else { return }
            let answer = transport.respond(request)
            guard let response = HTTPURLResponse(url: url, statusCode: answer.statusCode, httpVersion: "HTTP/1.1",
                                                 headerFields: answer.headers.merging(["Content-Length": String(answer.body.count)]) { given, _ in given })
            else { return }
            transfer.receive(response: response)
            if !answer.body.isEmpty, registry.transfer(for: self) != nil {
                transfer.didReceive(data: answer.body)
            }
            guard registry.transfer(for: self) != nil else { return }
            registry.detach(self)
            transfer.didComplete(error: nil)
        }
    }

    var hasCompleted: Bool { false }

    /// Like URLSession's, a cancel is confirmed by a completion (which frees a draining slot).
    func cancel() {
        transport.delegateQueue.async { [self] in transport.registry.taskDidComplete(self) }
    }
}
