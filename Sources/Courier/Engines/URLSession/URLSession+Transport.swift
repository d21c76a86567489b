import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession engine: a Network's URLSession is its ``Transport``, its tasks the
/// ``TransportTask``s; the ``SessionDelegate`` reports their events and classifies how they end
/// (``URLSessionFailure``).
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

    /// FoundationNetworking fails a task's 21st redirect with `-1007` ("too many HTTP
    /// redirects") before asking the delegate, whatever the delegate would decide (measured: the
    /// delegate sees 20). So a task lets it follow 19, and the 20th is followed by Courier with a
    /// new task (whose count starts again): ``Network/maximumRedirects`` holds above 20 too.
    var redirectsFollowedPerTask: Int? { Self.redirectCeiling - 1 }

    /// The redirects FoundationNetworking asks the delegate about within one task.
    static let redirectCeiling = 20

    /// URLSession fails such a task with "resource exceeds maximum size".
    var sendsGETBodies: Bool { false }

    /// URLSession takes a `URLRequest`: the one place this engine makes it.
    func makeDataTask(with request: WireRequest, options: TaskOptions) -> any TransportTask {
        dataTask(with: Self.applying(options, to: request.urlRequest))
    }

    func makeUploadTask(with request: WireRequest, fromFile file: URL, options: TaskOptions) -> any TransportTask {
        uploadTask(with: Self.applying(options, to: Self.withoutChunkedFraming(request).urlRequest), fromFile: file)
    }

    /// A caller's `Transfer-Encoding: chunked` is not handed to FoundationNetworking with a body
    /// from a file: its libcurl then frames the upload itself, and 3 of 60 such uploads (a
    /// 12-byte file, six at a time, loopback) sent the head and never the body, waiting for
    /// ever. The file goes with its length instead; the server receives the same bytes.
    static func withoutChunkedFraming(_ request: WireRequest) -> WireRequest {
        guard let coding = request.value(for: "Transfer-Encoding"), coding.lowercased().contains("chunked") else { return request }
        var request = request
        request.set(nil, for: "Transfer-Encoding")
        return request
    }

    /// URLSession's only per-request limit is `timeoutInterval`, an idle timeout, which
    /// FoundationNetworking cuts to whole seconds (so 0.3 s would time out at once): the
    /// transfer watches the idle and connect timeouts itself (``StallWatch``), and URLSession
    /// gets the idle one as a backstop, rounded up and a second later (``TaskOptions/backstop(for:)``);
    /// none, a week (``RequestTimeout/transportLimit``), since a request's own default would be
    /// 60 s.
    ///
    /// Caching is Courier's (``HTTPCache``), in front of the session: the session has no cache of
    /// its own (``Network/Engine``'s core is made without one), and a request's cache policy,
    /// which Courier has acted on already, is not handed on (`.returnCacheDataDontLoad` would
    /// fail there for want of a cache).
    private static func applying(_ options: TaskOptions, to request: URLRequest) -> URLRequest {
        var request = request
        request.timeoutInterval = TaskOptions.backstop(for: options.idleTimeout) ?? RequestTimeout.transportLimit
        if request.cachePolicy != .useProtocolCachePolicy { request.cachePolicy = .reloadIgnoringLocalCacheData }
        return request
    }

    /// Reported on the delegate queue, after every callback of the task already queued there, so
    /// no chunk reaches the transfer after its end; the task is cancelled as any other (``cancel(_:)``).
    func fail(_ task: any TransportTask, with error: NetworkError) {
        if let delegate = delegate as? SessionDelegate {
            let failing = UncheckedSendable(task)  // URLSessionTask is thread-safe; not annotated on Linux.
            delegateQueue.addOperation { delegate.fail(failing.value, with: error) }
        }
        cancel(task)
    }

    /// `httpAdditionalHeaders`, which URLSession sends with every request.
    var configuredHeaders: [(name: String, value: String)] {
        (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value in
            (key as? String).map { ($0, "\(value)") }
        }
    }

    func invalidate() {
        finishTasksAndInvalidate()
    }
}
