import Courier
import Foundation

/// `--retry N` as curl 7.88 applies it, to each transfer of a request command:
///
/// - What is retried: a timeout (exit 28), a host or proxy that cannot be resolved (6, 5); a
///   response of 408, 429, 500, 502, 503 or 504 (when the transfer otherwise succeeded, or failed
///   only because of `-f`); with `--retry-connrefused`, a refused connection (7); with
///   `--retry-all-errors`, any failure at all. Anything else is final.
/// - When: after `--retry-delay` seconds, or else 1 s, doubling with each retry up to 10 minutes;
///   a `Retry-After` the server sent with one of those statuses wins.
/// - How long: with `--retry-max-time`, no retry starts later than that many seconds after the
///   first attempt, nor when the server's `Retry-After` would take it past that.
///
/// The library's own retry policy is not used for requests: curl prints the body of each
/// attempt (a `503` page, then the answer), and so does courier.
struct RetryRules: Sendable, Equatable {
    /// `--retry`: retries allowed after the first attempt.
    let count: Int
    /// `--retry-delay`; `nil` (or 0, as in curl) for the doubling one.
    let delay: TimeInterval?
    /// `--retry-max-time`.
    let maxTime: TimeInterval?
    let allErrors: Bool
    let connectionRefused: Bool
    /// `-f`: an error status is then a failure (22) that may be retried.
    let fail: Bool

    /// curl's first wait without `--retry-delay`, and the longest it doubles to.
    static let defaultDelay: TimeInterval = 1
    static let maximumDelay: TimeInterval = 600

    /// Statuses curl takes for transient.
    static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    init(_ options: Options) {
        count = options.retries
        delay = options.retryDelay.flatMap { $0 > 0 ? $0 : nil }
        maxTime = options.retryMaxTime
        allErrors = options.retryAllErrors
        connectionRefused = options.retryConnectionRefused
        fail = options.fail || options.failWithBody
    }

    init(count: Int, delay: TimeInterval? = nil, maxTime: TimeInterval? = nil, allErrors: Bool = false,
         connectionRefused: Bool = false, fail: Bool = false) {
        self.count = count
        self.delay = delay
        self.maxTime = maxTime
        self.allErrors = allErrors
        self.connectionRefused = connectionRefused
        self.fail = fail
    }

    /// Where a transfer stands between attempts.
    struct State: Sendable {
        var retriesLeft: Int
        /// The wait before the next retry, unless the server says otherwise.
        var sleep: TimeInterval
        /// Retries made (`%{num_retries}`).
        var made = 0
    }

    func start() -> State {
        State(retriesLeft: count, sleep: delay ?? Self.defaultDelay)
    }

    /// How long to wait before another attempt after one that ended with `exitCode` (and, when a
    /// response came, its `status` and `Retry-After`), or `nil` for none. `elapsed` is the time
    /// since the first attempt began. Updates `state` for the retry it allows.
    func retryDelay(after exitCode: ExitCode, status: Int?, retryAfter: String?, elapsed: TimeInterval,
                    state: inout State) -> TimeInterval? {
        guard state.retriesLeft > 0 else { return nil }
        if let maxTime, elapsed >= maxTime { return nil }
        var retry = false
        var serverWait: TimeInterval?
        switch exitCode {
        case .timedOut, .unknownHost, .unknownProxy:
            retry = true
        case .connectionRefused:
            retry = connectionRefused
        case .ok, .httpError:
            // An error status is a failure only with -f; without, the transfer succeeded.
            if exitCode == .ok || fail, let status, Self.transientStatuses.contains(status) {
                retry = true
                serverWait = retryAfter.flatMap { Self.seconds(inRetryAfter: $0) }
            }
        default:
            break
        }
        if !retry, exitCode != .ok, allErrors { retry = true }
        guard retry else { return nil }
        var wait = state.sleep
        if let serverWait, serverWait > 0 {
            if let maxTime, maxTime - elapsed.rounded(.down) < serverWait { return nil }
            wait = serverWait
        }
        state.retriesLeft -= 1
        state.made += 1
        if delay == nil { state.sleep = min(state.sleep * 2, Self.maximumDelay) }
        return wait
    }

    /// A `Retry-After` value in seconds: a number of seconds, or an HTTP date from now.
    static func seconds(inRetryAfter value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed), seconds >= 0 { return TimeInterval(seconds) }
        return HTTPDate.parse(trimmed, now: now).map { max(0, $0.timeIntervalSince(now)) }
    }
}
