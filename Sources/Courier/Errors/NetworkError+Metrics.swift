import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkError {
    /// The metrics of the attempt that failed, where the error can carry them: how far it got
    /// (``TransferMetrics/phase``: the host did not resolve, the connection or the TLS handshake
    /// failed, no head came, the body was cut short), when, and over which connection.
    ///
    /// ```swift
    /// catch let error as NetworkError {
    ///     if let metrics = error.metrics {
    ///         print("failed while \(metrics.phase.map(String.init(describing:)) ?? "?") after \(metrics.total) s")
    ///     }
    /// }
    /// ```
    ///
    /// Carried by the errors that come from a transfer — ``transport(_:)``, ``tls(_:_:)``,
    /// ``proxy(_:_:)``, ``incompleteBody(_:)`` (in their `URLError`) — and by those that carry a
    /// response (``httpStatus(_:)`` and its kin, in ``HTTPResponse/metrics``). `nil` for the
    /// others: nothing was sent (``invalidRequest(_:)``, ...), or Courier itself ended the
    /// attempt (``cancelled``, ``timedOut(_:)``), or the case has no room for them
    /// (``invalidResponse(_:)``). ``NetworkObserver/didFinishCollecting(_:context:)`` sees every
    /// attempt's metrics, those included.
    public var metrics: TransferMetrics? {
        switch self {
        case let .transport(error), let .tls(_, error), let .proxy(_, error), let .incompleteBody(error),
             let .curlOptionRefused(_, _, error):
            return error.transferMetrics
        default:
            return response?.metrics
        }
    }
}

extension NetworkError {
    /// The same error with `metrics` in the `URLError` it carries, unless that has metrics
    /// already (the transport's own); cases without a `URLError` are returned as they are.
    func carrying(metrics: TransferMetrics) -> NetworkError {
        func with(_ error: URLError) -> URLError { error.transferMetrics == nil ? error.carrying(metrics) : error }
        switch self {
        case let .transport(error): return .transport(with(error))
        case let .tls(failure, error): return .tls(failure, with(error))
        case let .proxy(failure, error): return .proxy(failure, with(error))
        case let .incompleteBody(error): return .incompleteBody(with(error))
        case let .curlOptionRefused(option, version, error): return .curlOptionRefused(option: option, libcurlVersion: version, with(error))
        default: return self
        }
    }
}

extension URLError {
    /// `userInfo` key of the ``TransferMetrics`` of the attempt a transport error ended.
    static let transferMetricsKey = "CourierTransferMetrics"

    /// The metrics of the attempt this error ended, when the transport or Courier recorded them.
    var transferMetrics: TransferMetrics? { userInfo[Self.transferMetricsKey] as? TransferMetrics }

    /// The same error, carrying `metrics`.
    func carrying(_ metrics: TransferMetrics) -> URLError {
        var userInfo = self.userInfo
        userInfo[Self.transferMetricsKey] = metrics
        return URLError(code, userInfo: userInfo)
    }
}
