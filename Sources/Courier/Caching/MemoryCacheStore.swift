import Foundation

/// The responses an ``HTTPCache`` keeps in memory: at most `capacity` bytes (by
/// ``CachedResponse/cost``), the least recently used URL evicted first.
struct MemoryCacheStore {
    private struct Slot {
        var variants: [CachedResponse]
        var cost: Int
        var lastUse: UInt64
    }

    let capacity: Int
    private var slots: [String: Slot] = [:]
    private var clock: UInt64 = 0
    private(set) var usage = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    mutating func variants(for key: String) -> [CachedResponse]? {
        guard var slot = slots[key] else { return nil }
        clock += 1
        slot.lastUse = clock
        slots[key] = slot
        return slot.variants
    }

    /// Keeps `variants` for `key` (replacing what was there), if they fit at all.
    mutating func set(_ variants: [CachedResponse], for key: String) {
        remove(key)
        let cost = variants.reduce(0) { $0 + $1.cost }
        guard !variants.isEmpty, cost <= capacity else { return }
        clock += 1
        slots[key] = Slot(variants: variants, cost: cost, lastUse: clock)
        usage += cost
        evict()
    }

    mutating func remove(_ key: String) {
        if let old = slots.removeValue(forKey: key) { usage -= old.cost }
    }

    mutating func removeAll() {
        slots.removeAll()
        usage = 0
    }

    /// Drops the least recently used URLs until the rest fit: the oldest quarter at a time, so
    /// that a full cache sorts once per many stores rather than once per store.
    private mutating func evict() {
        guard usage > capacity else { return }
        let byAge = slots.sorted { $0.value.lastUse < $1.value.lastUse }
        let target = capacity - capacity / 4
        for (key, slot) in byAge {
            guard usage > target else { break }
            slots.removeValue(forKey: key)
            usage -= slot.cost
        }
    }
}
