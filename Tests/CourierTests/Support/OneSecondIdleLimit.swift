import Courier
import Foundation

/// Sets every attempt's idle timeout to one second the way code written for URLSession does, with
/// the request's `timeoutInterval` (see `RequestTimeout.idleTimeout(of:)`).
struct OneSecondIdleLimit: RequestInterceptor {
    func adapt(_ request: URLRequest, context: RequestContext,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = request
        request.timeoutInterval = 1
        completion(.success(request))
    }
}
