import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A flag that is set once and that a thread can wait for, with a deadline: what a blocking call
/// waits on (``BlockingResult``).
///
/// One heap object holds the flag, its mutex and a condition variable (a `ManagedBuffer`), where
/// a `DispatchSemaphore` beside a ``Locked`` flag took three allocations a blocking request. The
/// mutex also orders what the setter wrote before ``open(_:)`` before whatever the waiter reads
/// after ``wait(until:)`` or ``isOpen``.
struct Latch: @unchecked Sendable {  // the flag is read and written under the mutex only.
    private final class Storage: ManagedBuffer<Bool, LatchPrimitives> {
        deinit {
            // The header (a Bool) needs nothing; the primitives are ours to destroy.
            withUnsafeMutablePointerToElements { primitives in
                pthread_cond_destroy(&primitives.pointee.condition)
                pthread_mutex_destroy(&primitives.pointee.mutex)
            }
        }
    }

    private let storage: Storage

    init() {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in false }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { primitives in
            pthread_mutex_init(&primitives.pointee.mutex, nil)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            #if !canImport(Darwin)
            // Timed waits count on the monotonic clock, as Dispatch's deadlines do; Darwin has no
            // such attribute and waits a relative time instead (see `wait`).
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            #endif
            pthread_cond_init(&primitives.pointee.condition, &attributes)
            pthread_condattr_destroy(&attributes)
        }
    }

    /// Runs `body` under the mutex, then sets the flag and wakes the waiter. Call once.
    func open(_ body: () -> Void) {
        storage.withUnsafeMutablePointers { isOpen, primitives in
            pthread_mutex_lock(&primitives.pointee.mutex)
            body()
            isOpen.pointee = true
            pthread_cond_broadcast(&primitives.pointee.condition)
            pthread_mutex_unlock(&primitives.pointee.mutex)
        }
    }

    /// Whether ``open(_:)`` has run.
    var isOpen: Bool {
        storage.withUnsafeMutablePointers { isOpen, primitives in
            pthread_mutex_lock(&primitives.pointee.mutex)
            defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
            return isOpen.pointee
        }
    }

    /// Waits until the latch is open or `deadline` has passed (`.distantFuture`: no deadline).
    /// - Returns: Whether it is open.
    func wait(until deadline: DispatchTime) -> Bool {
        storage.withUnsafeMutablePointers { isOpen, primitives in
            pthread_mutex_lock(&primitives.pointee.mutex)
            defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
            while !isOpen.pointee {
                if deadline == .distantFuture {
                    pthread_cond_wait(&primitives.pointee.condition, &primitives.pointee.mutex)
                    continue
                }
                let now = DispatchTime.now()
                guard now < deadline else { return false }
                // At most a minute at a time (the loop waits again): no sum below can overflow,
                // however far the deadline.
                let nanoseconds = min(deadline.uptimeNanoseconds - now.uptimeNanoseconds, 60_000_000_000)
                #if canImport(Darwin)
                var interval = Self.interval(nanoseconds: nanoseconds)
                pthread_cond_timedwait_relative_np(&primitives.pointee.condition, &primitives.pointee.mutex, &interval)
                #else
                var clock = timespec()
                clock_gettime(CLOCK_MONOTONIC, &clock)
                var end = Self.interval(nanoseconds: UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec) + nanoseconds)
                pthread_cond_timedwait(&primitives.pointee.condition, &primitives.pointee.mutex, &end)
                #endif
            }
            return true
        }
    }

    private static func interval(nanoseconds: UInt64) -> timespec {
        .init(tv_sec: .init(nanoseconds / 1_000_000_000), tv_nsec: .init(nanoseconds % 1_000_000_000))
    }
}

/// The mutex and condition variable of a ``Latch``, kept in its buffer.
struct LatchPrimitives {
    var mutex = pthread_mutex_t()
    var condition = pthread_cond_t()
}
