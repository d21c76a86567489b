import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches requests go by, for logging and metrics. Install on ``Network/observers``.
///
/// Methods are called synchronously on Courier's threads (the start, delegate, work or timer
/// queue) as things happen: keep them quick and thread-safe, and do not block. Every method has
/// an empty default.
public protocol NetworkObserver: Sendable {
    /// An attempt is about to be sent (after defaults and interceptors).
    func willSend(_ request: URLRequest, context: RequestContext)
    /// An attempt got a response (the body is included for in-memory requests, empty for downloads).
    func didReceive(_ response: HTTPResponse, context: RequestContext)
    /// The request failed for good (after any retries), cancellations and deadlines included.
    func didFail(_ error: NetworkError, context: RequestContext)
    /// An attempt failed with `error` and another follows after `delay` seconds.
    func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext)
}

extension NetworkObserver {
    /// Default: nothing.
    public func willSend(_ request: URLRequest, context: RequestContext) {}
    /// Default: nothing.
    public func didReceive(_ response: HTTPResponse, context: RequestContext) {}
    /// Default: nothing.
    public func didFail(_ error: NetworkError, context: RequestContext) {}
    /// Default: nothing.
    public func didRetry(after error: NetworkError, delay: TimeInterval, context: RequestContext) {}
}
