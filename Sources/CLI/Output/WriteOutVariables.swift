import Courier
import Foundation

/// Every `-w` variable courier knows, one line each: its curl name and how its value is read
/// from a ``WriteOutReport``.
///
/// The wire-level ones (times of the connection's phases, addresses and ports, the HTTP version,
/// connections made, the request's size) are read from the transfer's ``TransferMetrics``. What
/// the engine did not measure (URLSession on Linux reports only the first byte and the total) is
/// what curl prints for a phase it did not reach (`0.000000`, `0`, empty): never a made-up value.
enum WriteOutVariables {
    /// A variable's value, printed plainly (`-w '%{x}'`) or as a member of `%{json}`.
    enum Value {
        case string(String)
        case integer(Int64)
        case seconds(TimeInterval)
        /// `%{http_code}`'s three digits; a number in JSON.
        case status(Int)
        /// Unknown or absent: nothing plainly, `null` in JSON.
        case none

        var plain: String {
            switch self {
            case let .string(text): return text
            case let .integer(number): return String(number)
            case let .seconds(seconds): return String(format: "%.6f", seconds)
            case let .status(code): return String(format: "%03d", code)
            case .none: return ""
            }
        }

        var json: String {
            switch self {
            case let .string(text): return JSONText.string(text)
            case let .integer(number): return String(number)
            case let .seconds(seconds): return String(format: "%.6f", seconds)
            case let .status(code): return String(code)
            case .none: return "null"
            }
        }
    }

    struct Variable: Sendable {
        let name: String
        /// Whether `%{json}` includes it (curl 7.88's members, so that scripts find theirs).
        let inJSON: Bool
        let value: @Sendable (WriteOutReport) -> Value
    }

    /// A phase's time from the metrics, `0.000000` where it was not measured, as curl.
    private static func seconds(_ phase: @escaping @Sendable (TransferMetrics) -> TimeInterval?) -> @Sendable (WriteOutReport) -> Value {
        { report in .seconds(report.metrics.flatMap(phase) ?? 0) }
    }

    static let all: [Variable] = [
        Variable(name: "certs", inJSON: true) { _ in .string("") },
        Variable(name: "content_type", inJSON: true) { $0.response?.headers["Content-Type"].map(Value.string) ?? .none },
        Variable(name: "errormsg", inJSON: true) { $0.errorMessage.map(Value.string) ?? .none },
        Variable(name: "exitcode", inJSON: true) { .integer(Int64($0.exitCode.rawValue)) },
        Variable(name: "filename_effective", inJSON: true) { $0.filename.map(Value.string) ?? .none },
        Variable(name: "ftp_entry_path", inJSON: true) { _ in .none },
        Variable(name: "http_code", inJSON: true) { .status($0.statusCode) },
        Variable(name: "http_connect", inJSON: true) { _ in .status(0) },
        Variable(name: "http_version", inJSON: true) { .string(curlVersion($0.metrics?.httpVersion ?? $0.response?.httpVersion)) },
        Variable(name: "local_ip", inJSON: true) { .string($0.metrics?.localAddress ?? "") },
        Variable(name: "local_port", inJSON: true) { .integer(Int64($0.metrics?.localPort ?? 0)) },
        Variable(name: "method", inJSON: true) { .string($0.method) },
        Variable(name: "num_certs", inJSON: true) { _ in .integer(0) },
        Variable(name: "num_connects", inJSON: true) { .integer($0.metrics?.reusedConnection == false ? 1 : 0) },
        Variable(name: "num_headers", inJSON: true) { .integer(Int64($0.response?.headers.fields.count ?? 0)) },
        Variable(name: "num_redirects", inJSON: true) { .integer(Int64($0.redirectHeads.count)) },
        Variable(name: "proxy_ssl_verify_result", inJSON: true) { _ in .integer(0) },
        Variable(name: "redirect_url", inJSON: true) { $0.redirectURL.map(Value.string) ?? .none },
        Variable(name: "referer", inJSON: true) { $0.referer.map(Value.string) ?? .none },
        Variable(name: "remote_ip", inJSON: true) { .string($0.metrics?.remoteAddress ?? "") },
        Variable(name: "remote_port", inJSON: true) { .integer(Int64($0.metrics?.remotePort ?? 0)) },
        Variable(name: "response_code", inJSON: true) { .status($0.statusCode) },
        Variable(name: "scheme", inJSON: true) { report in
            report.response == nil ? .none : .string(report.effectiveURL.scheme?.uppercased() ?? "")
        },
        Variable(name: "size_download", inJSON: true) { .integer($0.downloadSize) },
        Variable(name: "size_header", inJSON: true) { .integer($0.headerSize) },
        Variable(name: "size_request", inJSON: true) { .integer($0.metrics?.requestBytes ?? 0) },
        Variable(name: "size_upload", inJSON: true) { .integer($0.uploadSize) },
        Variable(name: "speed_download", inJSON: true) { .integer(speed($0.downloadSize, $0.totalTime)) },
        Variable(name: "speed_upload", inJSON: true) { .integer(speed($0.uploadSize, $0.totalTime)) },
        Variable(name: "ssl_verify_result", inJSON: true) { _ in .integer(0) },
        Variable(name: "time_appconnect", inJSON: true, value: seconds(\.tlsHandshake)),
        Variable(name: "time_connect", inJSON: true, value: seconds(\.connect)),
        Variable(name: "time_namelookup", inJSON: true, value: seconds(\.nameLookup)),
        Variable(name: "time_pretransfer", inJSON: true, value: seconds(\.requestSent)),
        Variable(name: "time_redirect", inJSON: true, value: seconds(\.redirectTime)),
        Variable(name: "time_starttransfer", inJSON: true, value: seconds(\.firstByte)),
        Variable(name: "time_total", inJSON: true) { .seconds($0.metrics?.total ?? $0.totalTime) },
        Variable(name: "url", inJSON: true) { .string(Redaction.standard.redact(urlString: $0.urlText)) },
        Variable(name: "url_effective", inJSON: true) { .string(Redaction.standard.redact($0.effectiveURL)) },
        Variable(name: "urlnum", inJSON: true) { .integer(Int64($0.urlIndex)) },
        Variable(name: "curl_version", inJSON: true) { _ in .string(versionText) },
        // Not in curl 7.88's %{json}.
        Variable(name: "num_retries", inJSON: false) { .integer(Int64($0.retryCount)) },
        Variable(name: "header_json", inJSON: false) { .string(headerJSON($0.response)) },
        Variable(name: "json", inJSON: false) { .string(json($0)) },
    ]

    static let byName: [String: Variable] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// `%{curl_version}`: courier's version and the libcurl it runs on.
    static var versionText: String {
        "courier/\(CourierVersion.current)" + (Network.Engine.curlVersion.map { " " + $0 } ?? "")
    }

    /// `%{http_version}`: `1.0`, `1.1`, `2`, `3`, or `0` when unknown, as curl prints it.
    static func curlVersion(_ version: HTTPVersion?) -> String {
        guard let version, version != .unknown else { return "0" }
        return version.major >= 2 ? String(version.major) : "\(version.major).\(version.minor)"
    }

    /// Bytes per second, whole, as curl reports its speeds.
    private static func speed(_ bytes: Int64, _ seconds: TimeInterval) -> Int64 {
        seconds > 0 ? Int64(Double(bytes) / seconds) : 0
    }

    /// `%{json}`: the members curl 7.88 writes, in its order.
    private static func json(_ report: WriteOutReport) -> String {
        JSONText.object(all.filter(\.inJSON).map { ($0.name, $0.value(report).json) })
    }

    /// `%{header_json}`: the last response's fields, names lower-cased, each with its values,
    /// one member a line, as curl writes it.
    private static func headerJSON(_ response: HTTPResponse?) -> String {
        guard let response, !response.headers.fields.isEmpty else { return "{}" }
        var order: [String] = []
        var values: [String: [String]] = [:]
        for field in response.headers.fields {
            let name = field.name.lowercased()
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(field.value)
        }
        let members = order.map { name in JSONText.string(name) + ":[" + values[name, default: []].map(JSONText.string).joined(separator: ",") + "]" }
        return "{" + members.joined(separator: ",\n") + "\n}"
    }
}
