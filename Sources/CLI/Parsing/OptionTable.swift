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
/// `--help` mentions each of them. The options are grouped in files by what they shape:
/// the request (`OptionTable+Request`), its output (`OptionTable+Output`), how transfers run
/// (`OptionTable+Transfer`).
enum OptionTable {
    static let all: [OptionSpec] = requestOptions + outputOptions + transferOptions + libcurlOptions + [
        .flag("help", "h") { $0.help = true },
        .flag("version", "V") { $0.version = true },
        // Read before anything else when first on the line (see ConfigFile); a no-op elsewhere.
        .flag("disable", "q") { _ in },
        // Expanded in place by the parser, which reads the file (see ArgumentParser).
        .value("config", "K") { _, _, _ in },
    ]

    static let byLongName: [String: OptionSpec] = Dictionary(
        uniqueKeysWithValues: all.compactMap { spec in spec.long.map { ($0, spec) } })

    static let byShortName: [Character: OptionSpec] = Dictionary(
        uniqueKeysWithValues: all.compactMap { spec in spec.short.map { ($0, spec) } })

    /// A number of seconds, fractions allowed: positive, or also 0 when `allowingZero`.
    static func seconds(_ value: String, _ spelling: String, allowingZero: Bool = false) throws(Failure) -> TimeInterval {
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

    /// A whole number of at least `minimum`, or a usage error that says so.
    static func count(_ value: String, _ spelling: String, minimum: Int = 0) throws(Failure) -> Int {
        guard let count = Int(value), count >= minimum else {
            throw Failure.usage("\(spelling) needs a whole number of \(minimum) or more, not '\(value)'")
        }
        return count
    }

    /// The values of `--engine`.
    static let engines: [String: Network.Engine] = ["curl": .curl, "urlsession": .urlSession]

    /// Options that name one thing: giving them twice is more likely a mistake than a wish.
    static func setOnce(_ slot: inout String?, _ value: String, _ spelling: String) throws(Failure) {
        guard slot == nil else { throw Failure.usage("\(spelling) was given twice") }
        slot = value
    }
}
