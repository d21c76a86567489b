import Courier
import Foundation

/// `-w FORMAT`: one line (or whatever the format says) on stdout once the request is over,
/// after the body, also when it failed: the way a script reads a status without parsing headers.
///
/// The format is curl's: `%{variable}` is replaced by its value, `%%` is a `%`, and `\n`, `\r`,
/// `\t`, `\\` are the usual escapes. `@FILE` reads the format from a file. An unknown variable
/// is a usage error (curl prints a warning and nothing), so a typo fails before any request.
struct WriteOut: Sendable {
    /// The variables, by their curl names.
    enum Variable: String, CaseIterable, Sendable {
        case contentType = "content_type"
        case errorMessage = "errormsg"
        case exitCode = "exitcode"
        case httpCode = "http_code"
        case httpVersion = "http_version"
        case json = "json"
        case localIP = "local_ip"
        case localPort = "local_port"
        case method = "method"
        case connectCount = "num_connects"
        case redirectCount = "num_redirects"
        case retryCount = "num_retries"
        case remoteIP = "remote_ip"
        case remotePort = "remote_port"
        case responseCode = "response_code"
        case downloadSize = "size_download"
        case headerSize = "size_header"
        case requestSize = "size_request"
        case uploadSize = "size_upload"
        case downloadSpeed = "speed_download"
        case uploadSpeed = "speed_upload"
        case appConnectTime = "time_appconnect"
        case connectTime = "time_connect"
        case nameLookupTime = "time_namelookup"
        case pretransferTime = "time_pretransfer"
        case redirectTime = "time_redirect"
        case startTransferTime = "time_starttransfer"
        case totalTime = "time_total"
        case effectiveURL = "url_effective"
    }

    /// What the variables report about one run.
    struct Report: Sendable {
        /// The status of the last response, or `nil` when none came (printed as `000`).
        var statusCode: Int?
        var contentType: String?
        var downloadSize: Int64
        var totalTime: TimeInterval
        /// The URL of the last request sent (after redirects); shown redacted.
        var effectiveURL: URL
        var method: String
        var redirectCount: Int
        var retryCount: Int
        var exitCode: ExitCode
        var errorMessage: String?
        /// The last attempt's metrics, for the wire variables (``WireWriteOut``).
        var metrics: TransferMetrics? = nil
        /// The last response's HTTP version.
        var httpVersion: HTTPVersion? = nil
    }

    private enum Piece: Sendable {
        case text(String)
        case variable(Variable)
    }

    private let pieces: [Piece]

    /// Reads `-w`'s argument: the format, or `@FILE`.
    init(argument: String) throws(Failure) {
        var format = argument
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            do {
                format = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw Failure(.readError, "cannot read \(path): \(Failure.describe(error))")
            }
        }
        try self.init(format: format)
    }

    init(format: String) throws(Failure) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let character = rest.popFirst() {
            switch character {
            case "%" where rest.first == "%":
                rest.removeFirst()
                text.append("%")
            case "%" where rest.first == "{":
                guard let close = rest.firstIndex(of: "}") else {
                    throw .usage("-w: '%{' without a closing '}'")
                }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                guard let variable = Variable(rawValue: name) else {
                    let known = Variable.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .usage("-w: unknown variable %{\(name)} (known: \(known))")
                }
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(.variable(variable))
                rest = rest[rest.index(after: close)...]
            case "\\" where rest.first.map("nrt\\".contains) == true:
                switch rest.removeFirst() {
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                default: text.append("\\")
                }
            default:
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The format with every variable replaced.
    func render(_ report: Report) -> String {
        pieces.map { piece in
            switch piece {
            case let .text(text): return text
            case let .variable(variable): return Self.value(of: variable, in: report)
            }
        }.joined()
    }

    private static func value(of variable: Variable, in report: Report) -> String {
        if let wire = WireWriteOut.value(of: variable.rawValue, metrics: report.metrics, version: report.httpVersion,
                                         total: report.totalTime) {
            return wire.plain
        }
        switch variable {
        case .contentType: return report.contentType ?? ""
        case .errorMessage: return report.errorMessage ?? ""
        case .exitCode: return String(report.exitCode.rawValue)
        case .httpCode, .responseCode: return String(format: "%03d", report.statusCode ?? 0)
        case .json: return json(report)
        case .method: return report.method
        case .redirectCount: return String(report.redirectCount)
        case .retryCount: return String(report.retryCount)
        case .downloadSize: return String(report.downloadSize)
        case .effectiveURL: return Redaction.standard.redact(report.effectiveURL)
        default: return ""   // the wire variables, above
        }
    }

    /// Every other variable as one JSON object, keys in alphabetical order; numbers as
    /// numbers, a missing content type or message as `null`.
    private static func json(_ report: Report) -> String {
        let members = Variable.allCases.filter { $0 != .json }.map { variable -> (key: String, value: String) in
            let value: String
            if let wire = WireWriteOut.value(of: variable.rawValue, metrics: report.metrics, version: report.httpVersion,
                                             total: report.totalTime) {
                return (variable.rawValue, wire.json)
            }
            switch variable {
            case .httpCode, .responseCode: value = String(report.statusCode ?? 0)
            case .exitCode, .redirectCount, .retryCount, .downloadSize: value = Self.value(of: variable, in: report)
            case .contentType: value = JSONText.optionalString(report.contentType)
            case .errorMessage: value = JSONText.optionalString(report.errorMessage)
            default: value = JSONText.string(Self.value(of: variable, in: report))
            }
            return (variable.rawValue, value)
        }
        return JSONText.object(members)
    }
}
