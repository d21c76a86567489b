import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recovery for expiring bearer tokens: adds `Authorization: Bearer <token>` to every attempt
/// and, when a response is `401`, fetches a new token once and replays the request.
///
/// Concurrent `401`s share one refresh: the first starts it, the others wait for its result. A
/// request whose replay is refused again is not refreshed a second time. A failed refresh ends
/// the waiting requests with their `401`.
///
/// ```swift
/// network.interceptors = [BearerTokenRefresher(token: savedToken) { done in
///     authNetwork.schedule(RefreshToken(refreshToken)) { result in done(result.map(\.accessToken)) }
/// }]
/// ```
///
/// Fetch the token through another ``Network``, or through this one without blocking: the
/// refresh runs while the failed request holds no concurrency slot.
public final class BearerTokenRefresher: RequestInterceptor {
    /// Fetches a new token and reports it (or why it could not) to the completion, exactly once.
    public typealias Refresh = @Sendable (_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> Void

    private struct State {
        var token: String?
        var refreshing = false
        var waiters: [@Sendable (RetryDecision) -> Void] = []
        /// Requests already replayed after a refresh (bounded; oldest forgotten first).
        var refreshedRequests: [UInt64] = []
    }

    private let state: Locked<State>
    private let refresh: Refresh

    /// Creates a refresher with a token to start with (or none: the first `401` fetches one).
    public init(token: String? = nil, refresh: @escaping Refresh) {
        self.state = Locked(State(token: token))
        self.refresh = refresh
    }

    /// The token currently sent.
    public var token: String? { state.withLock { $0.token } }

    /// Adds the current token, if there is one. A token with a control character (a stray
    /// newline, say) fails the request with ``NetworkError/invalidRequest(_:)``: `setValue`
    /// would silently drop it and send the request unauthenticated.
    public func adapt(_ request: URLRequest, context: RequestContext,
                      completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = request
        if let token {
            do throws(NetworkError) {
                try HeaderValidation.check(Authentication.bearer(token))
            } catch {
                return completion(.failure(error))
            }
            request.setValue(Authentication.bearer(token).headerValue, forHTTPHeaderField: "Authorization")
        }
        completion(.success(request))
    }

    /// On a `401`: refreshes (once per request, shared between concurrent ones) and retries.
    public func retry(_ request: URLRequest, failedWith error: NetworkError, response: HTTPResponse?,
                      context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        guard response?.statusCode == 401 else { return completion(.useDefault) }
        let sent = request.value(forHTTPHeaderField: "Authorization")
        enum Step { case retryNow, giveUp, wait, startRefresh }
        let step = state.withLock { state -> Step in
            guard !state.refreshedRequests.contains(context.id) else { return .giveUp }
            state.refreshedRequests.append(context.id)
            if state.refreshedRequests.count > 1024 { state.refreshedRequests.removeFirst(512) }
            // Someone refreshed since this request was sent: just replay it with the new token.
            if let token = state.token, sent != "Bearer " + token, !state.refreshing { return .retryNow }
            state.waiters.append(completion)
            if state.refreshing { return .wait }
            state.refreshing = true
            return .startRefresh
        }
        switch step {
        case .retryNow: completion(.retry)
        case .giveUp: completion(.doNotRetry)
        case .wait: break
        case .startRefresh:
            refresh { [state] result in
                let waiters = state.withLock { state -> [@Sendable (RetryDecision) -> Void] in
                    if case let .success(token) = result { state.token = token }
                    state.refreshing = false
                    defer { state.waiters = [] }
                    return state.waiters
                }
                let decision: RetryDecision = (try? result.get()) == nil ? .doNotRetry : .retry
                waiters.forEach { $0(decision) }
            }
        }
    }
}
