import Courier
import Foundation

/// One option `courier` accepts: its spellings, whether it takes a value, and what it sets.
struct OptionSpec: Sendable {
    /// The long name without `--`, or `nil` for a short-only option.
    let long: String?
    let short: Character?
    let takesValue: Bool
    /// Records the option in `options`; `value` is empty for flags, `spelling` is how the user
    /// wrote the option (`-o`, `--output`), so that messages quote it back.
    /// Throws only ``Failure``; typed throws do not reach closure literals, so the parser checks.
    let apply: @Sendable (_ options: inout Options, _ value: String, _ spelling: String) throws -> Void

    static func flag(_ long: String, _ short: Character? = nil,
                     _ apply: @escaping @Sendable (inout Options) -> Void) -> OptionSpec {
        OptionSpec(long: long, short: short, takesValue: false) { options, _, _ in apply(&options) }
    }

    static func value(_ long: String?, _ short: Character? = nil,
                      _ apply: @escaping @Sendable (inout Options, String, String) throws -> Void) -> OptionSpec {
        OptionSpec(long: long, short: short, takesValue: true, apply: apply)
    }
}

/// Every option, in one table: the parser looks names up here, and a test checks that
/// `--help` mentions each of them.
enum OptionTable {
    static let all: [OptionSpec] = [
        .value("header", "H") { options, value, _ in options.headers.append(value) },
        .value("user", "u") { options, value, spelling in try setOnce(&options.user, value, spelling) },
        .value("bearer") { options, value, spelling in try setOnce(&options.bearer, value, spelling) },
        .value("data") { options, value, _ in options.dataArguments.append(DataArgument(kind: .data, value: value)) },
        .value(nil, "d") { options, value, _ in options.dataArguments.append(DataArgument(kind: .data, value: value, isShortD: true)) },
        .value("data-raw") { options, value, _ in options.dataArguments.append(DataArgument(kind: .raw, value: value)) },
        .value("data-urlencode") { options, value, _ in options.dataArguments.append(DataArgument(kind: .urlEncode, value: value)) },
        .flag("get", "G") { $0.dataInQuery = true },
        .value("json") { options, value, spelling in try setOnce(&options.json, value, spelling) },
        .value("form", "F") { options, value, _ in options.form.append(value) },
        .value("upload-file", "T") { options, value, spelling in try setOnce(&options.uploadFile, value, spelling) },
        .value("request", "X") { options, value, spelling in try setOnce(&options.method, value, spelling) },
        .value("user-agent", "A") { options, value, spelling in try setOnce(&options.userAgent, value, spelling) },
        .value("referer", "e") { options, value, spelling in try setOnce(&options.referer, value, spelling) },
        .value("range", "r") { options, value, spelling in try setOnce(&options.range, value, spelling) },
        .value("cookie", "b") { options, value, _ in options.cookies.append(value) },
        .value("cookie-jar", "c") { options, value, spelling in try setOnce(&options.cookieJar, value, spelling) },
        .value("output", "o") { options, value, spelling in try setOnce(&options.output, value, spelling) },
        .value("dir") { options, value, spelling in try setOnce(&options.directory, value, spelling) },
        .flag("include", "i") { $0.includeHeaders = true },
        .value("write-out", "w") { options, value, spelling in try setOnce(&options.writeOut, value, spelling) },
        .flag("json-output") { $0.jsonOutput = true },
        .flag("no-buffer", "N") { $0.noBuffer = true },
        .flag("no-resume") { $0.noResume = true },
        .flag("silent", "s") { $0.silent = true },
        .flag("verbose", "v") { $0.verbose = true },
        .flag("fail", "f") { $0.fail = true },
        .flag("progress") { $0.progress = true },
        .value("timeout", "m") { options, value, spelling in options.timeout = try seconds(value, spelling) },
        .value("connect-timeout") { options, value, spelling in options.connectTimeout = try seconds(value, spelling) },
        .value("retries") { options, value, spelling in
            guard let count = Int(value), count >= 0 else {
                throw Failure.usage("\(spelling) needs a whole number of 0 or more, not '\(value)'")
            }
            options.retries = count
        },
        .value("retry-delay") { options, value, spelling in options.retryDelay = try seconds(value, spelling, allowingZero: true) },
        // 0 means no limit, as in curl.
        .value("retry-max-time") { options, value, spelling in
            let limit = try seconds(value, spelling, allowingZero: true)
            options.retryMaxTime = limit > 0 ? limit : nil
        },
        .value("max-redirs") { options, value, spelling in
            guard let count = Int(value), count >= -1 else {
                throw Failure.usage("\(spelling) needs a whole number of 0 or more (-1: no limit), not '\(value)'")
            }
            options.maxRedirects = count
        },
        .value("max-filesize") { options, value, spelling in
            guard let bytes = byteCount(value), bytes > 0 else {
                throw Failure.usage("\(spelling) needs a size in bytes, optionally with k, M or G, not '\(value)'")
            }
            options.maxFilesize = bytes
        },
        .value("max-concurrent") { options, value, spelling in
            guard let count = Int(value), count >= 1 else {
                throw Failure.usage("\(spelling) needs a whole number of 1 or more, not '\(value)'")
            }
            options.maxConcurrent = count
        },
        .value("engine") { options, value, spelling in
            guard let engine = engines[value.lowercased()] else {
                throw Failure.usage("\(spelling) takes curl or urlsession, not '\(value)'")
            }
            options.engine = engine
        },
        .value("cacert") { options, value, spelling in try setOnce(&options.caCertificates, value, spelling) },
        .value("pinnedpubkey") { options, value, spelling in try setOnce(&options.pinnedPublicKeys, value, spelling) },
        .value("cert", "E") { options, value, spelling in try setOnce(&options.clientCertificate, value, spelling) },
        .value("key") { options, value, spelling in try setOnce(&options.clientKey, value, spelling) },
        .flag("insecure", "k") { $0.insecure = true },
        .value("proxy", "x") { options, value, spelling in try setOnce(&options.proxy, value, spelling) },
        // The last of the three wins, as in curl.
        .flag("http1.1") { $0.httpVersion = .http1_1 },
        .flag("http2") { $0.httpVersion = .http2 },
        .flag("http2-prior-knowledge") { $0.httpVersion = .http2PriorKnowledge },
        .value("unix-socket") { options, value, spelling in try setOnce(&options.unixSocket, value, spelling) },
        .value("limit-rate") { options, value, spelling in
            // curl's suffixes (k, M, G); 0 is curl's "no limit".
            guard let rate = byteCount(value) else {
                throw Failure.usage("\(spelling) needs a rate in bytes per second, optionally with k, M or G, not '\(value)'")
            }
            options.limitRate = rate > 0 ? rate : nil
        },
        .flag("help", "h") { $0.help = true },
        .flag("version", "V") { $0.version = true },
    ]

    static let byLongName: [String: OptionSpec] = Dictionary(
        uniqueKeysWithValues: all.compactMap { spec in spec.long.map { ($0, spec) } })

    static let byShortName: [Character: OptionSpec] = Dictionary(
        uniqueKeysWithValues: all.compactMap { spec in spec.short.map { ($0, spec) } })

    /// A number of seconds, fractions allowed: positive, or also 0 when `allowingZero`.
    private static func seconds(_ value: String, _ spelling: String, allowingZero: Bool = false) throws(Failure) -> TimeInterval {
        guard let seconds = TimeInterval(value), seconds.isFinite, seconds > 0 || (allowingZero && seconds == 0) else {
            let wanted = allowingZero ? "a number of seconds (0 or more)" : "a positive number of seconds"
            throw Failure.usage("\(spelling) needs \(wanted), not '\(value)'")
        }
        return seconds
    }

    /// `1000`, `500k`, `20M`, `2G` (binary multiples, as curl reads them), or `nil`.
    static func byteCount(_ text: String) -> Int64? {
        let multipliers: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        var digits = Substring(text)
        var multiplier: Int64 = 1
        if let last = digits.last, let factor = multipliers[Character(last.lowercased())] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard let count = Int64(digits), count >= 0 else { return nil }
        let (product, overflow) = count.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    /// The values of `--engine`.
    static let engines: [String: Network.Engine] = ["curl": .curl, "urlsession": .urlSession]

    /// Options that name one thing: giving them twice is more likely a mistake than a wish.
    private static func setOnce(_ slot: inout String?, _ value: String, _ spelling: String) throws(Failure) {
        guard slot == nil else { throw Failure.usage("\(spelling) was given twice") }
        slot = value
    }
}
