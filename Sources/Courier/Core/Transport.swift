import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transfer's bytes travel through: the Network's URLSession, or a stub that answers
/// without a network (``Network/init(stub:callbackQueue:maximumConcurrentRequests:)``).
///
/// Either way the events reach the transfer the same way: on the Network's delegate queue,
/// through the ``TransferRegistry``. So the stub exercises all of Courier's own code.
protocol Transport: Sendable {
    func makeDataTask(with request: URLRequest) -> any TransportTask
    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask
    /// Releases the transport once its Network is gone and every transfer has ended.
    func invalidate()
}

/// One request in flight on a ``Transport``.
protocol TransportTask: AnyObject {
    func resume()
    func cancel()
    /// Whether the task has ended by itself already (then it needs no cancel).
    var hasCompleted: Bool { get }
}

extension URLSessionTask: TransportTask {
    var hasCompleted: Bool { state == .completed || state == .canceling }
}

extension URLSession: Transport {
    func makeDataTask(with request: URLRequest) -> any TransportTask {
        dataTask(with: request)
    }

    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask {
        uploadTask(with: request, fromFile: file)
    }

    func invalidate() {
        finishTasksAndInvalidate()
    }
}
