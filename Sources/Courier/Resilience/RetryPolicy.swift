import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how often a failed request is tried again.
///
/// Set per ``Network`` (``Network/retryPolicy``) and override per request
/// (``NetworkRequest/retryPolicy``). Retries apply to every calling convention alike.
///
/// ```swift
/// network.retryPolicy = RetryPolicy(maxAttempts: 4)          // 1 try + up to 3 retries
/// network.retryPolicy = .none                                 // never retry
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Total attempts, the first included: `3` means one try and at most two retries. At least 1.
    public var maxAttempts: Int {
        didSet { maxAttempts = max(1, maxAttempts) }
    }
    /// The backoff before retry *n* (1-based) is drawn uniformly from
    /// `0 ... min(maximumDelay, baseDelay × 2^(n-1))` ("full jitter"). In seconds.
    public var baseDelay: TimeInterval
    /// The cap of the exponential backoff, in seconds.
    public var maximumDelay: TimeInterval
    /// A server's `Retry-After` (seconds or an HTTP date) is honoured up to this many seconds;
    /// a longer one ends the retries and reports the response.
    public var maximumRetryAfter: TimeInterval
    /// Whether requests whose method is not idempotent (`POST`, `PATCH`) are retried too.
    public var retriesNonIdempotentRequests: Bool
    /// Statuses worth another attempt.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another attempt, as `URLError` codes (raw values, so that the
    /// Linux-only code `-1`, "transfer closed with bytes remaining", can be listed).
    public var retryableErrorCodes: Set<Int>

    /// Creates a policy; every parameter has the documented default.
    public init(
        maxAttempts: Int = 3,
        baseDelay: TimeInterval = 0.5,
        maximumDelay: TimeInterval = 30,
        maximumRetryAfter: TimeInterval = 120,
        retriesNonIdempotentRequests: Bool = false,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableErrorCodes: Set<Int> = RetryPolicy.defaultRetryableErrorCodes
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
    }

    /// One attempt, no retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// `408 Request Timeout`, `429 Too Many Requests`, `500`, `502`, `503`, `504`.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Timed out, cannot connect, connection lost, unknown host, DNS failure, not connected,
    /// and Linux's `-1` for a connection closed mid-body.
    public static let defaultRetryableErrorCodes: Set<Int> = [
        URLError.timedOut.rawValue, URLError.cannotConnectToHost.rawValue,
        URLError.networkConnectionLost.rawValue, URLError.cannotFindHost.rawValue,
        URLError.dnsLookupFailed.rawValue, URLError.notConnectedToInternet.rawValue, -1,
    ]
}
