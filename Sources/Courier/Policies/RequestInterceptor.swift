import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an interceptor wants done about a failed attempt.
public enum RetryDecision: Sendable, Hashable {
    /// Try again now.
    case retry
    /// Try again after this many seconds.
    case retryAfter(TimeInterval)
    /// Give up: the failure is reported.
    case doNotRetry
    /// No opinion: ask the next interceptor, and in the end the ``RetryPolicy``.
    case useDefault
}

/// Adjusts requests before each attempt and decides about retries: authentication, signing,
/// tracing headers, token refresh.
///
/// Both methods take a completion handler, so they may take their time (fetch a token, read a
/// keychain) without blocking any thread; they run off the callback queue, while the request
/// holds no concurrency slot. Install them on ``Network/interceptors``; they run in order.
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send for this attempt. Default: unchanged.
    /// A failure ends the request with ``NetworkError/interceptorFailed(_:)``.
    func adapt(_ request: URLRequest, context: RequestContext,
               completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void)

    /// Decides about a failed attempt: `request` is what was sent, `error` what went wrong, and
    /// `response` what the server answered, if anything. Default: ``RetryDecision/useDefault``.
    ///
    /// Retries an interceptor asks for are not limited by ``RetryPolicy/maxAttempts`` (a token
    /// refresh must work even with ``RetryPolicy/none``), but never exceed
    /// ``RetryPolicy/absoluteAttemptLimit`` attempts.
    func retry(_ request: URLRequest, failedWith error: NetworkError, response: HTTPResponse?,
               context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void)
}

extension RequestInterceptor {
    /// Default: the request unchanged.
    public func adapt(_ request: URLRequest, context: RequestContext,
                      completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(.success(request))
    }

    /// Default: no opinion.
    public func retry(_ request: URLRequest, failedWith error: NetworkError, response: HTTPResponse?,
                      context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        completion(.useDefault)
    }
}

/// Runs a list of interceptors in order, each step from the previous one's completion.
struct InterceptorChain: Sendable {
    let interceptors: [any RequestInterceptor]

    func adapt(_ request: URLRequest, context: RequestContext, from index: Int = 0,
               completion: @escaping @Sendable (Result<URLRequest, NetworkError>) -> Void) {
        guard index < interceptors.count else { return completion(.success(request)) }
        interceptors[index].adapt(request, context: context) { result in
            switch result {
            case let .success(adapted):
                adapt(adapted, context: context, from: index + 1, completion: completion)
            case let .failure(error):
                completion(.failure(error as? NetworkError ?? .interceptorFailed(error)))
            }
        }
    }

    /// The first decision other than `.useDefault`, or `.useDefault`.
    func retry(_ request: URLRequest, error: NetworkError, response: HTTPResponse?, context: RequestContext,
               from index: Int = 0, completion: @escaping @Sendable (RetryDecision) -> Void) {
        guard index < interceptors.count else { return completion(.useDefault) }
        interceptors[index].retry(request, failedWith: error, response: response, context: context) { decision in
            if decision == .useDefault {
                retry(request, error: error, response: response, context: context, from: index + 1, completion: completion)
            } else {
                completion(decision)
            }
        }
    }
}
