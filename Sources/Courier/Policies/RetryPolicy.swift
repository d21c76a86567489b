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
    /// Total attempts, the first included: `3` means one try and at most two retries. At least 1
    /// (0 and below are taken as 1), and never more than ``absoluteAttemptLimit``.
    public var maxAttempts: Int {
        didSet { maxAttempts = max(1, maxAttempts) }
    }
    /// The backoff before retry *n* (1-based) is drawn uniformly from
    /// `0 ... min(maximumDelay, baseDelay × 2^(n-1))` ("full jitter"). In seconds.
    ///
    /// Any value is accepted. When that ceiling is negative or zero, or either delay is not a
    /// number, retries follow at once; when it is infinite, it is taken as `.greatestFiniteMagnitude` (a wait so
    /// long that the request's deadline ends it first, if it has one).
    public var baseDelay: TimeInterval
    /// The cap of the exponential backoff, in seconds. Any value is accepted, as for
    /// ``baseDelay``.
    public var maximumDelay: TimeInterval
    /// A server's `Retry-After` (seconds or an HTTP date) is honoured up to this many seconds;
    /// a longer one ends the retries and reports the response. Negative or not a number: every
    /// response with a `Retry-After` is reported, never retried.
    public var maximumRetryAfter: TimeInterval
    /// Whether requests whose method is not idempotent (`POST`, `PATCH`) are retried too.
    public var retriesNonIdempotentRequests: Bool
    /// Statuses worth another attempt.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another attempt, as `URLError` codes (raw values, so that the
    /// Linux-only code `-1`, "transfer closed with bytes remaining", can be listed). Matched
    /// against ``NetworkError/transport(_:)`` and ``NetworkError/incompleteBody(_:)``, and
    /// ``NetworkError/proxy(_:_:)`` but for a refused tunnel (the proxy's answer, not a fault).
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

    /// No request is ever attempted more often than this, whatever policies and interceptors say.
    public static let absoluteAttemptLimit = 10

    /// `408 Request Timeout`, `429 Too Many Requests`, `500`, `502`, `503`, `504`.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Timed out (an engine's own backstop; an idle or connect timeout, ``NetworkError/timedOut(_:)``
    /// of kind ``TimeoutExceeded/Kind/idle`` or ``TimeoutExceeded/Kind/connect``, is retried when
    /// this set holds `URLError.timedOut`; the request's own deadline never is), cannot connect, connection lost, unknown
    /// host, DNS failure, not connected, and Linux's `-1` for a connection closed mid-body.
    public static let defaultRetryableErrorCodes: Set<Int> = [
        URLError.timedOut.rawValue, URLError.cannotConnectToHost.rawValue,
        URLError.networkConnectionLost.rawValue, URLError.cannotFindHost.rawValue,
        URLError.dnsLookupFailed.rawValue, URLError.notConnectedToInternet.rawValue, -1,
    ]

    /// How long to wait before the next attempt, or `nil` not to retry.
    ///
    /// - Parameters:
    ///   - attempts: Attempts made so far (the one that just failed included). Any `Int`:
    ///     below 1 counts as 1.
    ///   - method: The request's method; non-idempotent ones are retried only when allowed.
    ///   - error: Why the attempt failed.
    ///   - now: The current time, for `Retry-After` dates.
    public func delay(afterAttempt attempts: Int, method: HTTPMethod, error: NetworkError, now: Date = Date()) -> TimeInterval? {
        // Not an `inout SystemRandomNumberGenerator`: that type is empty, and Thread Sanitizer
        // reports every concurrent `inout` use of its (shared) address as a race.
        delay(afterAttempt: attempts, method: method, error: error, now: now) { Double.random(in: $0) }
    }

    /// ``delay(afterAttempt:method:error:now:)`` with a chosen random source (for tests).
    public func delay<Generator: RandomNumberGenerator>(
        afterAttempt attempts: Int, method: HTTPMethod, error: NetworkError, now: Date, using generator: inout Generator
    ) -> TimeInterval? {
        delay(afterAttempt: attempts, method: method, error: error, now: now) { Double.random(in: $0, using: &generator) }
    }

    private func delay(
        afterAttempt attempts: Int, method: HTTPMethod, error: NetworkError, now: Date, random: (ClosedRange<Double>) -> Double
    ) -> TimeInterval? {
        guard attempts < min(maxAttempts, Self.absoluteAttemptLimit) else { return nil }
        guard method.isIdempotent || retriesNonIdempotentRequests else { return nil }
        switch error {
        case let .transport(urlError) where retryableErrorCodes.contains(urlError.code.rawValue),
             let .incompleteBody(urlError) where retryableErrorCodes.contains(urlError.code.rawValue):
            return backoff(afterAttempt: attempts, random: random)
        case let .proxy(failure, urlError) where failure.mayMendItself && retryableErrorCodes.contains(urlError.code.rawValue):
            return backoff(afterAttempt: attempts, random: random)
        case let .timedOut(timeout) where timeout.endsOnlyTheAttempt:
            // A connection that stalled or never came: the next attempt may fare better, as for
            // an engine's own timeout (`URLError.timedOut`, above) — and the same set decides.
            guard retryableErrorCodes.contains(URLError.timedOut.rawValue) else { return nil }
            return backoff(afterAttempt: attempts, random: random)
        case .timedOut:
            // The request's own deadline or a blocking call's, final.
            return nil
        case let .httpStatus(response) where retryableStatusCodes.contains(response.statusCode):
            guard let header = response.headers["Retry-After"] else { return backoff(afterAttempt: attempts, random: random) }
            guard let wait = RetryAfter.seconds(from: header, now: now) else { return backoff(afterAttempt: attempts, random: random) }
            // A server asking for longer than we are willing to wait gets its answer reported.
            return wait <= maximumRetryAfter ? wait : nil
        case .limitExceeded, .invalidResponse:
            // A server that sent a decompression bomb, an endless line or a broken reply would
            // send it again.
            return nil
        default:
            return nil
        }
    }

    /// Full jitter: uniform in `0 ... min(maximumDelay, baseDelay × 2^(attempts-1))`.
    private func backoff(afterAttempt attempts: Int, random: (ClosedRange<Double>) -> Double) -> TimeInterval {
        // Not `attempts - 1`: that traps for `Int.min`.
        let exponent = attempts > 1 ? Double(attempts) - 1 : 0
        let grown = baseDelay * pow(2, exponent)
        // Not a number (either delay; `min` would keep the other), zero or negative: no wait.
        guard !grown.isNaN, !maximumDelay.isNaN else { return 0 }
        let ceiling = min(maximumDelay, grown)
        guard ceiling > 0 else { return 0 }
        // `Double.random(in:)` traps on an infinite range.
        return random(0...min(ceiling, .greatestFiniteMagnitude))
    }
}

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
enum RetryAfter {
    /// Seconds to wait from `now`, or `nil` when the value is neither a number of seconds nor an
    /// HTTP date. Dates are read by ``HTTPDate``, never by `DateFormatter`, which traps on some
    /// non-ASCII input: the header is the server's to choose.
    static func seconds(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // Digits only (no sign); a number too long for an Int is a wait longer than any limit.
            return TimeInterval(Int(trimmed) ?? Int.max)
        }
        return HTTPDate.parse(trimmed, now: now).map { max(0, $0.timeIntervalSince(now)) }
    }
}
