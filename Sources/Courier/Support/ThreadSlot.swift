#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An object bound to the current thread for the length of a call: a thread-specific slot (cheaper
/// than a thread dictionary) holding an unretained reference, which ``binding(_:_:)`` keeps alive
/// while it is set, and which any code the call runs on that thread can find (``current(_:)``).
struct ThreadSlot: Sendable {
    private let key: pthread_key_t

    /// A new slot; there are few of them, each made once (a `static let`).
    init() {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "pthread_key_create failed (\(created)): no thread-specific slot left")
        self.key = key
    }

    // Inlined: each use is a couple of C calls on a request's path, where a generic call
    // that cannot be specialized (`binding` inside a generic caller) would cost more than they do.

    /// The object bound to the calling thread, if any.
    @inline(__always)
    func current<Object: AnyObject>(_: Object.Type) -> Object? {
        pthread_getspecific(key).map { Unmanaged<Object>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with `object` bound to the calling thread, then restores what was bound before.
    @inline(__always)
    func binding<Object: AnyObject, T>(_ object: Object, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        // `object` stays alive for this call (the caller holds it), so the unretained slot never
        // outlives it.
        pthread_setspecific(key, Unmanaged.passUnretained(object).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
