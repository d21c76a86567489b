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
        .value("data") { options, value, _ in options.data.append(value) },
        .value(nil, "d") { options, value, _ in options.shortD.append(value) },
        .value("json") { options, value, spelling in try setOnce(&options.json, value, spelling) },
        .value("form", "F") { options, value, _ in options.form.append(value) },
        .value("upload-file", "T") { options, value, spelling in try setOnce(&options.uploadFile, value, spelling) },
        .value("output", "o") { options, value, spelling in try setOnce(&options.output, value, spelling) },
        .value("dir") { options, value, spelling in try setOnce(&options.directory, value, spelling) },
        .flag("include", "i") { $0.includeHeaders = true },
        .flag("no-buffer", "N") { $0.noBuffer = true },
        .flag("no-resume") { $0.noResume = true },
        .flag("silent", "s") { $0.silent = true },
        .flag("fail", "f") { $0.fail = true },
        .flag("progress") { $0.progress = true },
        .value("timeout", "m") { options, value, spelling in
            guard let seconds = TimeInterval(value), seconds.isFinite, seconds > 0 else {
                throw Failure.usage("\(spelling) needs a positive number of seconds, not '\(value)'")
            }
            options.timeout = seconds
        },
        .value("retries") { options, value, spelling in
            guard let count = Int(value), count >= 0 else {
                throw Failure.usage("\(spelling) needs a whole number of 0 or more, not '\(value)'")
            }
            options.retries = count
        },
        .value("max-concurrent") { options, value, spelling in
            guard let count = Int(value), count >= 1 else {
                throw Failure.usage("\(spelling) needs a whole number of 1 or more, not '\(value)'")
            }
            options.maxConcurrent = count
        },
        .flag("help", "h") { $0.help = true },
        .flag("version", "V") { $0.version = true },
    ]

    static let byLongName: [String: OptionSpec] = Dictionary(
        uniqueKeysWithValues: all.compactMap { spec in spec.long.map { ($0, spec) } })

    static let byShortName: [Character: OptionSpec] = Dictionary(
        uniqueKeysWithValues: all.compactMap { spec in spec.short.map { ($0, spec) } })

    /// Options that name one thing: giving them twice is more likely a mistake than a wish.
    private static func setOnce(_ slot: inout String?, _ value: String, _ spelling: String) throws(Failure) {
        guard slot == nil else { throw Failure.usage("\(spelling) was given twice") }
        slot = value
    }
}
