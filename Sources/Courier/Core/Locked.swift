import Foundation

/// A value guarded by a lock: every read and write goes through ``withLock(_:)``.
///
/// `Synchronization.Mutex` would do the same but needs macOS 15 / iOS 18; an `NSLock` works on
/// every platform Courier supports. `package`, not public: the `courier` tool and the benchmarks
/// share it, but it is no part of the library's API.
package final class Locked<State>: @unchecked Sendable {  // every access to `state` holds `lock`.
    private let lock = NSLock()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state. Never call out to user code or to
    /// URLSession from inside `body`: that is how locks turn into deadlocks.
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// A copy of the state as it is now.
    package var current: State {
        withLock { $0 }
    }
}

/// Carries a non-`Sendable` value across a queue hop where the surrounding code guarantees
/// it is never used from two threads at once. Each use says why that holds.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
