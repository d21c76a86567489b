import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches requests go by, for logging and metrics. Install on ``Network/observers``.
///
/// Methods are called synchronously, on the thread where the event happens: the one that
/// schedules or cancels the request (or frees the slot it starts in), Courier's start, work or
/// timer queue, or the engine's own thread, where everything the server sends is reported (the
/// curl engine's loop thread; the network's delegate queue on URLSession and for a stub). Keep
/// them quick and thread-safe, and do not block: on the curl engine a slow observer holds up
/// every transfer of its network. See <doc:Threading>. Every method has an empty default.
public protocol NetworkObserver: Sendable {
    /// A request is about to be sent: each attempt (after defaults and interceptors), and each
    /// redirect an attempt follows (right after ``didRedirect(_:to:context:)``). `request.url`
    /// is where it goes; `context` describes the attempt it belongs to.
    func willSend(_ request: URLRequest, context: RequestContext)
    /// The current attempt got a redirect (`response`, with an empty body) and follows it with
    /// `request`; ``willSend(_:context:)`` reports that request next. Counting these gives the
    /// redirects of an attempt. A redirect that is not followed (past
    /// ``Network/maximumRedirects``) is not reported here but as the attempt's response.
    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext)
    /// An attempt got a response (the body is included for in-memory requests, empty for downloads
    /// and streams). Called before the caller's own code sees that response: before a stream's
    /// `onResponse`, before `bytes(for:)` or a blocking call returns, before any completion.
    func didReceive(_ response: HTTPResponse, context: RequestContext)
    /// The request failed for good (after any retries), cancellations and deadlines included.
    func didFail(_ error: NetworkError, context: RequestContext)
    /// An attempt failed with `error` and another follows after `delay` seconds.
    func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext)
    /// An attempt's transfer is over, and this is where its time went, over which connection
    /// and protocol (see ``TransferMetrics``): every attempt that reached the network, failed
    /// or not, streams and downloads included, before ``didReceive(_:context:)`` reports an
    /// in-memory response (which carries the same metrics) and before ``didFail(_:context:)``
    /// or ``didRetry(after:delay:context:)``. Not called for an attempt Courier ended itself
    /// (cancelled, timed out), whose transfer is dropped unread.
    ///
    /// ```swift
    /// struct SlowRequestLog: NetworkObserver {
    ///     func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
    ///         if metrics.total > 1 { print(context.url?.host ?? "?", metrics.timeline) }
    ///     }
    /// }
    /// ```
    func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext)
}

extension NetworkObserver {
    /// Default: nothing.
    public func willSend(_ request: URLRequest, context: RequestContext) {}
    /// Default: nothing.
    public func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {}
    /// Default: nothing.
    public func didReceive(_ response: HTTPResponse, context: RequestContext) {}
    /// Default: nothing.
    public func didFail(_ error: NetworkError, context: RequestContext) {}
    /// Default: nothing.
    public func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {}
    /// Default: nothing.
    public func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {}
}
