import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock: every read and write goes through ``withLock(_:)``.
///
/// `Synchronization.Mutex` would do the same but needs macOS 15 / iOS 18. This is a value
/// holding one reference: the state and its `pthread_mutex_t` live in a single heap object
/// (`ManagedBuffer`), where a class holding an `NSLock` took three allocations (the class, the
/// `NSLock`, its mutex) and a run-time exclusivity check on every access. A request takes
/// several of these, so that was a measurable part of Courier's own cost (Docs/Performance.md).
/// Copies share the one state. `package`, not public: the `courier` tool and the benchmarks
/// share it, but it is no part of the library's API.
///
/// `State` must have a size: a zero-sized one (`Void`) would sit at the mutex's own address, and
/// Thread Sanitizer reports every access to it as racing the lock's (seen in CI).
package struct Locked<State>: @unchecked Sendable {  // every access to the state holds the mutex.
    private final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        deinit {
            // The header (the state) is destroyed by ManagedBuffer; the mutex is ours to destroy.
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    package init(_ state: State) {
        assert(MemoryLayout<State>.size > 0, "Locked needs a state with a size; see its documentation")
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in state }, to: Storage.self)
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    /// Runs `body` with exclusive access to the state. Never call out to user code or to
    /// URLSession from inside `body`: that is how locks turn into deadlocks.
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try storage.withUnsafeMutablePointers { state, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
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

extension Locked: CustomReflectable {
    /// No children: reading the state without the lock would race its writers, and what is kept
    /// behind a lock (tokens, recorded requests, the defaults' headers) is not for `dump` to show.
    package var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .struct)
    }
}
