import Foundation

/// Reads the allocation counter of `scripts/malloc-count.c`, a tiny `LD_PRELOAD` shim that counts
/// every malloc-family call of the process (all threads). Without the shim there is no counter
/// and allocations are reported as unknown.
///
/// The symbol is looked up once, before timing starts: `dlopen`/`dlsym` allocate themselves.
struct MallocCounter {
    private typealias Reader = @convention(c) () -> UInt

    private let reader: Reader

    init?() {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "courier_bench_malloc_count") else {
            return nil
        }
        reader = unsafeBitCast(symbol, to: Reader.self)
    }

    /// Allocations made by the process so far.
    var count: UInt { reader() }
}
