import Foundation

/// A value shared between the benchmark's own threads and Courier's or URLSession's callback
/// threads, guarded by a lock. (Courier's `Locked` is internal to the library.)
final class Synchronized<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// Counts failed requests from any thread; a run with failures is reported as failed.
final class FailureTally: Sendable {
    private let count = Synchronized(0)
    private let first = Synchronized<String?>(nil)

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
