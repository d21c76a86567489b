import Foundation

/// Settings every command shares.
struct Settings: Sendable {
    var silent: Bool
    var fail: Bool
    /// `--progress`: progress even when stderr is not a terminal (as plain lines), or with `-s`.
    var progressRequested: Bool
    /// The overall deadline of each request; `.infinity` when `--timeout` is not given, as curl.
    var timeout: TimeInterval
    var retries: Int
    var maxConcurrent: Int

    init(_ options: Options) {
        silent = options.silent
        fail = options.fail
        progressRequested = options.progress
        timeout = options.timeout ?? .infinity
        retries = options.retries
        maxConcurrent = options.maxConcurrent
    }
}
