import Courier
import Foundation

/// The `-w` variables about the wire — times of each phase, addresses, the protocol, connections
/// made, sizes and speeds — read from the last attempt's ``TransferMetrics`` and written as curl
/// writes them: seconds with six decimals, sizes and speeds in whole bytes, `http_version` as
/// `1.1` or `2`. What the engine did not measure (URLSession on Linux reports only the first
/// byte and the total) is what curl prints for a phase it did not reach: `0.000000`, `0`, empty.
enum WireWriteOut {
    /// A value, printed plainly or as a member of `%{json}`.
    enum Value: Equatable {
        case text(String)
        case integer(Int64)
        case seconds(TimeInterval)

        var plain: String {
            switch self {
            case let .text(text): return text
            case let .integer(number): return String(number)
            case let .seconds(seconds): return String(format: "%.6f", seconds)
            }
        }

        var json: String {
            switch self {
            case let .text(text): return JSONText.string(text)
            case .integer, .seconds: return plain
            }
        }
    }

    /// The value of one of the wire variables (curl's name), or `nil` for another variable.
    /// `total` is the run's own clock, used where the engine reported no total.
    static func value(of name: String, metrics: TransferMetrics?, version: HTTPVersion?, total: TimeInterval) -> Value? {
        let total = metrics?.total ?? total
        switch name {
        case "http_version": return .text(curlVersion(metrics?.httpVersion ?? version))
        case "time_namelookup": return .seconds(metrics?.nameLookup ?? 0)
        case "time_connect": return .seconds(metrics?.connect ?? 0)
        case "time_appconnect": return .seconds(metrics?.tlsHandshake ?? 0)
        case "time_pretransfer": return .seconds(metrics?.requestSent ?? 0)
        case "time_starttransfer": return .seconds(metrics?.firstByte ?? 0)
        case "time_redirect": return .seconds(metrics?.redirectTime ?? 0)
        case "time_total": return .seconds(total)
        case "remote_ip": return .text(metrics?.remoteAddress ?? "")
        case "remote_port": return .integer(Int64(metrics?.remotePort ?? 0))
        case "local_ip": return .text(metrics?.localAddress ?? "")
        case "local_port": return .integer(Int64(metrics?.localPort ?? 0))
        case "num_connects": return .integer(metrics?.reusedConnection == false ? 1 : 0)
        case "speed_download": return .integer(speed(metrics?.bytesReceived, total))
        case "speed_upload": return .integer(speed(metrics?.bytesSent, total))
        case "size_header": return .integer(metrics?.headerBytes ?? 0)
        case "size_request": return .integer(metrics?.requestBytes ?? 0)
        case "size_upload": return .integer(metrics?.bytesSent ?? 0)
        default: return nil
        }
    }

    /// `%{http_version}`: `1.0`, `1.1`, `2`, `3`, or `0` when unknown, as curl prints it.
    static func curlVersion(_ version: HTTPVersion?) -> String {
        guard let version, version != .unknown else { return "0" }
        return version.major >= 2 ? String(version.major) : "\(version.major).\(version.minor)"
    }

    /// Bytes per second over the transfer, whole, as curl reports its speeds.
    private static func speed(_ bytes: Int64?, _ seconds: TimeInterval) -> Int64 {
        guard let bytes, seconds > 0 else { return 0 }
        return Int64(Double(bytes) / seconds)
    }
}
