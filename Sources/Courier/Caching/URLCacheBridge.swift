import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``HTTPCache`` that stands for a configuration's `URLCache`, so that
/// `configuration.urlCache` means on Linux, on both engines, what it means on Apple platforms.
///
/// Every network made with the same `URLCache` shares one ``HTTPCache`` (while any of them
/// lives), with that `URLCache`'s memory capacity. Its disk part is not used: `URLCache` does not
/// say where it keeps its files, and a cache folder Courier picked for it would be written by
/// every program that made a network from `.default`. A cache on disk is given explicitly:
/// ``HTTPCache/init(memoryCapacity:diskCapacity:directory:)``.
enum URLCacheBridge {
    private struct Pair {
        weak var urlCache: URLCache?
        weak var cache: HTTPCache?
    }

    private static let pairs = Locked<[ObjectIdentifier: Pair]>([:])

    /// The cache for `configuration`'s `urlCache`, or `nil` when it has none (or one of 0 bytes).
    static func cache(for configuration: URLSessionConfiguration) -> HTTPCache? {
        cache(for: configuration.urlCache)
    }

    /// The cache for `urlCache`, or `nil` for none (or one of 0 bytes).
    static func cache(for urlCache: URLCache?) -> HTTPCache? {
        guard let urlCache, urlCache.memoryCapacity > 0 else { return nil }
        let id = ObjectIdentifier(urlCache)
        return pairs.withLock { pairs in
            if let pair = pairs[id], pair.urlCache === urlCache, let cache = pair.cache { return cache }
            pairs = pairs.filter { $0.value.urlCache != nil && $0.value.cache != nil }
            let cache = HTTPCache(memoryCapacity: urlCache.memoryCapacity)
            pairs[id] = Pair(urlCache: urlCache, cache: cache)
            return cache
        }
    }
}
