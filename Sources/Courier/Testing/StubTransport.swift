import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    func cancel(_ task: any TransportTask) {
        task.cancel()
    }

    func invalidate() {}
}

/// One stubbed request: on `resume()` its whole answer is delivered on the delegate queue.
final class StubTask: TransportTask, Sendable {
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
            // Sorted by name, as heads from URLSession are, so that equal answers compare equal.
            let fields = answer.headers.merging(["Content-Length": String(answer.body.count)]) { given, _ in given }
                .sorted { $0.key.lowercased() < $1.key.lowercased() }.map { (name: $0.key, value: $0.value) }
            transfer.didReceive(head: HTTPResponse(statusCode: answer.statusCode, headers: HTTPHeaders(fields), url: url))
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
