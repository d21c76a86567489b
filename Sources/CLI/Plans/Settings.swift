import Foundation

/// Settings every command shares.
struct Settings: Sendable {
    var silent: Bool
    var fail: Bool
    /// `--progress`: progress even when stderr is not a terminal (as plain lines), or with `-s`.
    var progressRequested: Bool
    /// The overall deadline of each request; `.infinity` when `--timeout` is not given, as curl.
    var timeout: TimeInterval
    /// `--connect-timeout`: how long to wait for the connection, and then for each next byte.
    var connectTimeout: TimeInterval?
    var retries: Int
    /// `--retry-delay`: a fixed wait before each retry instead of the growing, jittered one.
    var retryDelay: TimeInterval?
    /// `--retry-max-time`: no retry starts later than this many seconds after the first attempt.
    var retryMaxTime: TimeInterval?
    var maxConcurrent: Int
    /// `--max-redirs`: `nil` for the library's default, `-1` for no limit of courier's own.
    var maxRedirects: Int?

    init(_ options: Options) {
        silent = options.silent
        fail = options.fail
        progressRequested = options.progress
        timeout = options.timeout ?? .infinity
        connectTimeout = options.connectTimeout
        retries = options.retries
        retryDelay = options.retryDelay
        retryMaxTime = options.retryMaxTime
        maxConcurrent = options.maxConcurrent
        maxRedirects = options.maxRedirects
    }
}
