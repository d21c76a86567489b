import Foundation

/// Which deadline passed, carried by ``NetworkError/timedOut(_:)``: the limit, its value, and the
/// URL the request was at.
///
/// ```swift
/// catch NetworkError.timedOut(let timeout) where timeout.kind == .requestDeadline {
///     print("give the server more than \(timeout.seconds ?? 0) s:", timeout)
/// }
/// ```
///
/// New kinds of deadline are new values of ``Kind``, not new cases of ``NetworkError``: code
/// that switches over `NetworkError` keeps compiling, and a `switch` over ``Kind`` needs a `default`.
public struct TimeoutExceeded: Sendable, Hashable, CustomStringConvertible {
    /// A kind of deadline. An open set of values (not an `enum`), so that kinds can be added
    /// without breaking the callers' `switch` statements.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the kind, e.g. `"requestDeadline"`.
        public let rawValue: String

        /// Creates a kind from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The request's own deadline, ``NetworkRequest/timeout`` (60 s by default): it covers
        /// the whole request, every attempt and the waits between them, from when it started.
        public static let requestDeadline = Kind(rawValue: "requestDeadline")
        /// The `timeout:` of a blocking call (``Network/scheduleSynchronously(_:timeout:progress:)``
        /// and its kin): the whole wait, time in the queue included.
        public static let blockingCall = Kind(rawValue: "blockingCall")
        /// No byte received or sent for this long (``TransferOptions/idleTimeout``, else the
        /// network's ``ConnectionOptions/idleTimeout``): a stalled connection. It ends the attempt,
        /// which the retry policy may repeat, not the request.
        public static let idle = Kind(rawValue: "idle")
        /// No connection for this long (``TransferOptions/connectTimeout``, else the network's
        /// ``ConnectionOptions/connectTimeout``). It ends the attempt, which the retry policy may
        /// repeat, not the request.
        public static let connect = Kind(rawValue: "connect")
        /// Not known: an error made with ``NetworkError/timedOut(_:)`` (a stub's reply, code written
        /// before this type existed).
        public static let unspecified = Kind(rawValue: "unspecified")

        /// The kind's name.
        public var description: String { rawValue }
    }

    /// The deadline that passed.
    public var kind: Kind
    /// Its value, in seconds, when known.
    public var seconds: TimeInterval?
    /// The URL the request was at when it passed (after redirects), when known.
    public var url: URL?

    /// Creates the detail of a timeout.
    public init(kind: Kind, seconds: TimeInterval?, url: URL? = nil) {
        self.kind = kind
        self.seconds = seconds
        self.url = url
    }

    /// What passed, where, and what to try, in one sentence; the URL as ``Redaction/standard`` shows it.
    public var description: String {
        description(redacting: .standard)
    }

    /// ``description``, with the URL shown through `redaction`.
    public func description(redacting redaction: Redaction) -> String {
        let target = url.map { "The request to \(redaction.redact($0))" } ?? "The request"
        let value = seconds.map { " of \(Self.format($0))" } ?? ""
        switch kind {
        case .requestDeadline:
            return "\(target) timed out: its deadline (NetworkRequest.timeout)\(value) passed, all attempts included. "
                + "A slow server needs a longer timeout; an unreachable one, a look at the network."
        case .blockingCall:
            return "\(target) timed out: the blocking call's timeout:\(value) passed, time waiting for a slot included. "
                + "Wait longer, or schedule fewer requests at once."
        case .idle:
            return "\(target) stalled: no byte arrived or left for its idle timeout\(value). "
                + "The server or the network stopped moving; a longer idleTimeout waits for slow ones."
        case .connect:
            return "\(target) timed out connecting: no connection within its connect timeout\(value). "
                + "The host may be down or filtered; a longer connectTimeout waits for slow networks."
        default:
            return "\(target) timed out\(value.isEmpty ? "" : " (a limit\(value))")."
        }
    }

    /// `15 s`, `0.25 s`, `1e-09 s`: whole seconds without a fraction, others as they are.
    private static func format(_ seconds: TimeInterval) -> String {
        if seconds.isFinite, seconds == seconds.rounded(), abs(seconds) < 1e15 { return "\(Int64(seconds)) s" }
        return "\(seconds) s"
    }

    /// Whether the limit ends only the attempt (a stalled or missing connection), which a retry
    /// may repeat, rather than the whole request.
    var endsOnlyTheAttempt: Bool { kind == .idle || kind == .connect }

    /// The same detail at `url`, unless it names one already.
    func locating(_ url: URL?) -> TimeoutExceeded {
        var located = self
        if located.url == nil { located.url = url }
        return located
    }
}
