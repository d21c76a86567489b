import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--connect-timeout SECONDS`.
///
/// URLSession on Linux has no timeout for the connection alone (it never sets libcurl's), and
/// reports no "connected" event to time one from. Its request timeout is an idle timeout: it
/// fires when nothing arrives for that long, which covers the connection (nothing arrives
/// until it is made) and every later stall. That is the timeout set here, on each attempt;
/// FoundationNetworking counts it in whole seconds, so it is rounded up (0.5 would be 0, an
/// immediate timeout).
struct ConnectTimeout: RequestInterceptor {
    let seconds: TimeInterval

    /// The whole seconds URLSession is given.
    var wholeSeconds: TimeInterval { max(1, seconds.rounded(.up)) }

    func adapt(_ request: URLRequest, context: RequestContext,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = request
        request.timeoutInterval = wholeSeconds
        completion(.success(request))
    }
}
