import Foundation

/// What a ``Transfer`` keeps of its request itself: its deadline, options, retry policy and rate
/// limit. The rest stays with the body, which keeps the request.
///
/// Read before the body is made, so that the request can be handed over to the body rather than
/// copied for both (a copy of a `Request` retains each of its ten or so parts, and is released
/// again at the end).
struct RequestTerms {
    let timeout: TimeInterval
    let transferOptions: TransferOptions
    let retryPolicy: RetryPolicy?
    let rateLimit: RateLimit?

    init<R: NetworkRequest>(_ request: R) {
        timeout = request.timeout
        transferOptions = request.transferOptions
        retryPolicy = request.retryPolicy
        rateLimit = request.rateLimit
    }
}
