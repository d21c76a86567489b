import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's deadline (``NetworkRequest/timeout``), as Courier enforces it, and the idle
/// limit its transport is given as a backstop (``TransportLimits``).
///
/// Courier's own timer enforces the deadline; URLSession gets only an idle timeout as a
/// backstop. FoundationNetworking turns that interval into whole milliseconds in an `Int` and
/// traps when it does not fit (measured: `1e16` seconds crashes the process, `1e13` works), so
/// what reaches it is capped at ``transportLimit``. Dispatch clamps its own deadlines, so
/// Courier's timer takes any finite value (a deadline of `1e300` seconds never fires).
enum RequestTimeout {
    /// The longest idle timeout handed to URLSession: a week. A connection that stalls that long
    /// is given up even when the request's deadline is later still.
    static let transportLimit: TimeInterval = 7 * 24 * 60 * 60

    /// Throws for a deadline that means nothing: negative (`-.infinity` included) or not a
    /// number. `0` is an immediate deadline, `.infinity` none at all.
    static func check(_ timeout: TimeInterval) throws(NetworkError) {
        if timeout.isNaN { throw .invalidRequest("the timeout is not a number") }
        if timeout < 0 { throw .invalidRequest("the timeout \(timeout) is negative (use .infinity for no deadline)") }
    }

    /// When a deadline of `timeout` seconds counted from `now` passes, in `DispatchTime` uptime
    /// nanoseconds, or `nil` for none (`.infinity`, or so far off, about 290 years, that the sum
    /// would overflow). Rounded up to the next nanosecond: a positive deadline, however small
    /// (`.leastNonzeroMagnitude`), is never 0, and is past by the time anything is sent.
    static func deadline(after timeout: TimeInterval, from now: UInt64) -> UInt64? {
        guard timeout.isFinite, timeout >= 0, timeout < 9e9 else { return nil }
        let (due, overflow) = now.addingReportingOverflow(UInt64((timeout * 1e9).rounded(.up)))
        return overflow ? nil : due
    }

    /// `configuration`, or a copy of it whose `timeoutIntervalForRequest` FoundationNetworking can
    /// take: it turns that into whole milliseconds in an `Int` for every request, whatever the
    /// request's own `timeoutInterval`, and traps when it does not fit (measured: `.infinity`,
    /// `.nan`, `-.infinity`, `1e16` and `1e300` crash the process; `-1`, `0` and `1e13` work).
    /// A value that is not a number or longer than ``transportLimit`` either way becomes
    /// ``transportLimit``: Courier's own deadline is the real one.
    static func takeable(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        guard !(configuration.timeoutIntervalForRequest.magnitude <= transportLimit),
              let copy = configuration.copy() as? URLSessionConfiguration else { return configuration }
        copy.timeoutIntervalForRequest = transportLimit
        return copy
    }

    /// URLSession's idle timeout for a deadline, or `nil` to keep URLSession's default (for no
    /// deadline, or none that makes sense). FoundationNetworking truncates it to whole seconds
    /// (0.3 would be an immediate timeout), so it is rounded up plus a second: a backstop for
    /// a stalled connection that never fires before Courier's own deadline.
    static func idleTimeout(for timeout: TimeInterval) -> TimeInterval? {
        guard timeout.isFinite, timeout > 0 else { return nil }
        return min(timeout.rounded(.up) + 1, transportLimit)
    }

    /// The transport's limits for an attempt's finished request: its `timeoutInterval` (the
    /// idle timeout Courier set from the deadline, or whatever an overridden `makeURLRequest` or
    /// an interceptor set instead) as the idle limit, in milliseconds. The one place that reads
    /// the field; engines get the value.
    static func limits(for request: URLRequest) -> TransportLimits {
        // Zero or negative means nothing as an idle timeout, and FoundationNetworking then times
        // out at once, or not, depending on a race (seen under Thread Sanitizer); too large, it
        // traps: the backstop's limit instead. Courier's own deadline is the real one.
        var interval = request.timeoutInterval
        if interval.isNaN || interval <= 0 || interval > transportLimit { interval = transportLimit }
        return TransportLimits(idleMilliseconds: Int((interval * 1000).rounded(.up)))
    }
}
