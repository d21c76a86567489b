import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transfer's bytes travel through: the Network's URLSession, libcurl (``CurlTransport``),
/// or a stub that answers without a network (`Network(stub:)`, see ``StubServer``).
///
/// Whichever it is, the events reach the transfer the same way, through the
/// ``TransferRegistry``, one at a time per task: on the Network's delegate queue (URLSession,
/// stub) or on the curl loop thread. So the stub exercises all of Courier's own code.
protocol Transport: Sendable {
    func makeDataTask(with request: URLRequest) -> any TransportTask
    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask
    /// Cancels a task whose transfer has ended (or that was never wanted): never blocks the
    /// caller, never under a lock.
    func cancel(_ task: any TransportTask)
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
    /// Cancels the task in the background, a moment after its transfer ended.
    ///
    /// Never on the caller's thread: on Linux `URLSessionTask.cancel()` blocks its caller
    /// (milliseconds to seconds). And not at once: FoundationNetworking traps ("task not in the
    /// registry") when its cancel races the task's own end, which it reports on another thread.
    /// A task that ends within ``cancelDelay`` (any short response) is then never cancelled at
    /// all, which closes that window for everything but transfers that happen to end exactly as
    /// the delayed cancel lands. The caller is not kept waiting: its completion was delivered
    /// already, and bytes arriving meanwhile are dropped unread.
    func cancel(_ task: any TransportTask) {
        let task = UncheckedSendable(task)  // URLSessionTask is thread-safe; not annotated on Linux.
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.cancelDelay) {
            guard !task.value.hasCompleted else { return }
            task.value.cancel()
        }
    }

    /// How long after a transfer ends early its URLSession task is cancelled; see ``cancel(_:)``.
    static let cancelDelay: TimeInterval = 0.025

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
