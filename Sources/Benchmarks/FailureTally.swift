import Courier
import Foundation

/// Counts failed requests from any thread; a run with failures is reported as failed.
final class FailureTally: Sendable {
    private let count = Locked(0)
    private let first = Locked<String?>(nil)

    func record(_ reason: String) {
        count.withLock { $0 += 1 }
        first.withLock { if $0 == nil { $0 = reason } }
    }

    var total: Int { count.current }
    var firstReason: String? { first.current }

    /// Ends the process if anything failed: a figure measured over failing requests is meaningless.
    func check(_ what: String) {
        if total > 0 { benchmarkFailure("\(what): \(total) request(s) failed, first: \(firstReason ?? "?")") }
    }
}
