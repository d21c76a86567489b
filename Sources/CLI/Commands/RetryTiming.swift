import Courier
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--retry-delay` and `--retry-max-time`: curl's timing of retries, over the policy that
/// `--retries` sets (which still decides *whether* a failure is worth another attempt).
///
/// - `--retry-delay SECONDS`: that wait before every retry, instead of the growing, jittered
///   one; a server's `Retry-After` still wins, as in curl.
/// - `--retry-max-time SECONDS`: a retry is made only if it would start within that many
///   seconds of the first attempt.
struct RetryTiming: RequestInterceptor {
    let policy: RetryPolicy
    let delay: TimeInterval?
    let maxTime: TimeInterval?
    /// When each request's first attempt was adapted, by request id.
    private let firstAttempts = Locked<[UInt64: DispatchTime]>([:])

    init(policy: RetryPolicy, delay: TimeInterval?, maxTime: TimeInterval?) {
        self.policy = policy
        self.delay = delay
        self.maxTime = maxTime
    }

    func adapt(_ request: URLRequest, context: RequestContext,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        if context.attempt == 1 { firstAttempts.withLock { $0[context.id] = .now() } }
        completion(.success(request))
    }

    func retry(_ request: URLRequest, failedWith error: NetworkError, response: HTTPResponse?,
               context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        guard let proposed = policy.delay(afterAttempt: context.attempt, method: method, error: error) else {
            return completion(.doNotRetry)
        }
        let serverAsked = response?.headers["Retry-After"] != nil
        let wait = serverAsked ? proposed : delay ?? proposed
        if let maxTime, let first = firstAttempts.withLock({ $0[context.id] }) {
            let elapsed = TimeInterval(DispatchTime.now().uptimeNanoseconds - first.uptimeNanoseconds) / 1e9
            guard elapsed + wait <= maxTime else { return completion(.doNotRetry) }
        }
        completion(.retryAfter(wait))
    }
}
