import Courier
import Foundation

/// Sets every attempt's idle limit (the transport's backstop, the request's `timeoutInterval`)
/// to one second, as the `courier` tool's `--connect-timeout` does.
struct OneSecondIdleLimit: RequestInterceptor {
    func adapt(_ request: URLRequest, context: RequestContext,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = request
        request.timeoutInterval = 1
        completion(.success(request))
    }
}
