import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one delegate of a ``Network``'s URLSession: routes every callback to the transfer that owns
/// the task, through the ``TransferRegistry`` (per-task delegates are never called on Linux).
///
/// Callbacks arrive one at a time on the Network's serial delegate queue. A task with no
/// registered transfer has already ended (cancelled, timed out): its callbacks are ignored.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let registry: TransferRegistry
    /// The tasks that have delivered a response head, until they complete: how a failure is
    /// classified depends on it (see ``URLSessionFailure/outcome(of:headReceived:)``).
    private let headsReceived = Locked<Set<ObjectIdentifier>>([])

    init(registry: TransferRegistry) {
        self.registry = registry
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse {
            headsReceived.withLock { _ = $0.insert(ObjectIdentifier(dataTask)) }
            registry.transfer(for: dataTask)?.didReceive(head: HTTPResponse(http, body: Data()))
        }
        completionHandler(.allow)
    }

    /// URLSession cannot pause a task, so no chunk of it is ever refused: a stream with no room
    /// waits for it here instead, holding up this queue (see ``StreamBody``).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        registry.transfer(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        registry.transfer(for: task)?.didSend(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// The task is over: its failure, if any, classified here (``URLSessionFailure``), so the
    /// transfer sees the ``NetworkError`` it means.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let headReceived = headsReceived.withLock { $0.remove(ObjectIdentifier(task)) != nil }
        let outcome = URLSessionFailure.outcome(of: error, headReceived: headReceived, request: error == nil ? nil : task.currentRequest)
        #if canImport(FoundationNetworking)
        // FoundationNetworking collects no metrics: the transfer times what it can itself.
        registry.complete(task, outcome: outcome, metrics: nil)
        #else
        var metrics = collected.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        if let collected = metrics { metrics?.phase = SessionMetrics.phase(of: collected, failed: error != nil) }
        registry.complete(task, outcome: outcome, metrics: metrics)
        #endif
    }

    /// Ends `task` with `error` (a limit its transfer watches passed; see ``Transport/fail(_:with:)``),
    /// unless it has ended already: the registry hands its end on once, whichever comes first.
    func fail(_ task: any TransportTask, with error: NetworkError) {
        headsReceived.withLock { _ = $0.remove(ObjectIdentifier(task)) }
        registry.complete(task, outcome: .failed(error), metrics: nil)
    }

    #if !canImport(FoundationNetworking)
    /// Task metrics, kept from `didFinishCollecting` until the task completes (Apple platforms).
    private let collected = Locked<[ObjectIdentifier: TransferMetrics]>([:])

    /// Apple's URLSession reports a task's metrics just before it completes.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        guard let converted = SessionMetrics.transferMetrics(from: metrics) else { return }
        collected.withLock { $0[ObjectIdentifier(task)] = converted }
    }
    #endif

    /// Redirects: Courier counts them (``Network/maximumRedirects``), keeps method and body on
    /// `307`/`308` (URLSession on Linux sends an empty body), drops credentials when the
    /// redirect leaves the original origin, and refuses schemes other than http(s). See
    /// ``RedirectPolicy``. The task of a transfer that has ended follows nothing: it is being
    /// cancelled, and a new request would serve nobody.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let transfer = registry.transfer(for: task), let proposed = try? WireRequest(request) else { return completionHandler(nil) }
        let previous = (task.currentRequest ?? task.originalRequest).flatMap { try? WireRequest($0) }
        completionHandler(transfer.redirect(HTTPResponse(response, body: Data()), to: proposed, from: previous)?.urlRequest)
    }

    /// Courier sends credentials up front (``Authentication``), so a server challenge means they
    /// were refused, and the `401` itself is the answer the caller needs.
    ///
    /// On Linux (measured): the `401` response and its body are delivered *before* the challenge;
    /// `.performDefaultHandling` then hangs the task for ever, `.useCredential` without a
    /// credential crashes, and rejecting ends the task with `URLError.cancelled`. So Courier
    /// rejects, tells the transfer, and the transfer reports the `401` it already holds as
    /// ``NetworkError/httpStatus(_:)``. Other challenges (TLS server trust, client certificates)
    /// keep the system's default handling.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        switch challenge.protectionSpace.authenticationMethod {
        case NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
             NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate, NSURLAuthenticationMethodDefault:
            registry.transfer(for: task)?.didRejectAuthenticationChallenge()
            completionHandler(.rejectProtectionSpace, nil)
        default:
            completionHandler(.performDefaultHandling, nil)
        }
    }
}
