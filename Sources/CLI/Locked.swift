import Foundation

/// A value shared between threads (worker threads, progress queues, the signal queue),
/// reachable only under its lock.
final class Locked<Value>: @unchecked Sendable {
    // `@unchecked` is sound: `value` is only touched inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
