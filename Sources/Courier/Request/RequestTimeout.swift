import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's deadline (``NetworkRequest/timeout``), as Courier enforces it, and the idle and
/// connect timeouts of its tasks (``TaskOptions``): the request's own over the network's.
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

    /// `value` where it is a limit (positive and finite), `nil` for none.
    private static func limit(_ value: TimeInterval?) -> TimeInterval? {
        guard let value, value.isFinite, value > 0 else { return nil }
        return value
    }

    /// A network's idle and connect timeouts: its ``ConnectionOptions``', else, for the idle
    /// one, the configuration's `timeoutIntervalForRequest` (URLSession's meaning of it: an idle
    /// timeout). A value that is no limit (`.infinity`, and for the configuration's, 0 or less
    /// or NaN, which the options refuse) is `nil`.
    static func networkTimeouts(configuration: URLSessionConfiguration, connection: ConnectionOptions) -> TransferOptions {
        return TransferOptions(idleTimeout: connection.idleTimeout.map(limit) ?? limit(configuration.timeoutIntervalForRequest),
                               connectTimeout: limit(connection.connectTimeout))
    }

    /// A curl network's own timeouts: its idle timeout (`nil` is 60 s, a configuration's
    /// default `timeoutIntervalForRequest`) and its connect timeout.
    static func networkTimeouts(curl connection: ConnectionOptions) -> TransferOptions {
        return TransferOptions(idleTimeout: limit(connection.idleTimeout ?? unsetInterval), connectTimeout: limit(connection.connectTimeout))
    }

    /// The idle timeout an attempt's finished request sets itself: a `timeoutInterval` other than
    /// `URLRequest`'s default (60 s), from an overridden `makeURLRequest` or an interceptor, as
    /// URLSession would take it; `nil` for none (the request's ``TransferOptions`` decide). The
    /// one place that reads the field.
    static func idleTimeout(of request: WireRequest) -> TimeInterval? {
        let interval = request.timeoutInterval
        guard interval != unsetInterval, interval.isFinite, interval > 0 else { return nil }
        return interval
    }

    /// `URLRequest`'s own `timeoutInterval` when nobody set one.
    static let unsetInterval: TimeInterval = 60

    /// The options of one task: the request's own over the network's (`nil` fields of
    /// `request` take `network`'s; `.infinity` means none), the attempt's `URLRequest` having the
    /// last word on the idle timeout (``idleTimeout(of:)``).
    static func options(request: TransferOptions, network: TransferOptions, rateLimit: RateLimit?, wireRequest: WireRequest) -> TaskOptions {
        let idle = idleTimeout(of: wireRequest) ?? (request.idleTimeout.map(limit) ?? network.idleTimeout)
        let connect = request.connectTimeout.map(limit) ?? network.connectTimeout
        return TaskOptions(idleTimeout: idle, connectTimeout: connect, rateLimit: rateLimit)
    }
}
