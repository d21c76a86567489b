import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) that Courier keeps itself, the same on both engines and on
/// every platform: fresh responses are answered without a request, stale ones are revalidated
/// (`If-None-Match`, `If-Modified-Since`; a `304` serves the stored body), and an unsafe request
/// (`POST`, `PUT`, `DELETE`, …) that succeeds drops what was stored for its URL.
///
/// Give a network one, or let it take its configuration's `urlCache` (see <doc:Caching>):
///
/// ```swift
/// let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-cache")
/// let network = Network()
/// network.cache = HTTPCache(memoryCapacity: 4 << 20, diskCapacity: 64 << 20, directory: folder)
/// ```
///
/// Only `GET` requests kept in memory take part (``Request``'s and every ``NetworkRequest``'s
/// usual output); downloads to disk, streams, requests with a `Range` or with a condition of their
/// own (`If-None-Match`, …) always go to the server. A response says where it came from:
/// ``HTTPResponse/cacheStatus``.
///
/// Both stores are bounded in bytes and evict the least recently used URL first. A response
/// larger than a store is not kept in it. Thread-safe; one cache may serve several networks,
/// and one folder several processes (every file is written whole, then renamed into place).
public final class HTTPCache: Sendable {
    /// The most bytes kept in memory.
    public let memoryCapacity: Int
    /// The most bytes kept in ``directory`` (0 without one).
    public let diskCapacity: Int
    /// The folder responses are kept in, or `nil` for memory only.
    public let directory: URL?

    private struct Stores {
        var memory: MemoryCacheStore
        var disk: DiskCacheStore?
    }

    /// The keys whose stored responses are being revalidated in the background
    /// (`stale-while-revalidate`): one refresh a URL at a time.
    private let refreshing = Locked<Set<String>>([])

    // One lock for both stores: each operation is short, and the disk's are rare next to the
    // requests that make them. Never held while user code runs.
    private let stores: Locked<Stores>

    /// A cache of at most `memoryCapacity` bytes in memory and, with a `directory`, at most
    /// `diskCapacity` bytes of files in it (the folder is made if missing). Negative capacities
    /// are taken as 0.
    ///
    /// - Parameters:
    ///   - memoryCapacity: Bytes of responses kept in memory. Default: 10 MiB.
    ///   - diskCapacity: Bytes of responses kept in `directory`. Default: 0.
    ///   - directory: Where responses are kept between runs; `nil` for memory only.
    public init(memoryCapacity: Int = 10 << 20, diskCapacity: Int = 0, directory: URL? = nil) {
        self.memoryCapacity = max(0, memoryCapacity)
        let disk = directory.flatMap { diskCapacity > 0 ? DiskCacheStore(directory: $0, capacity: diskCapacity) : nil }
        self.diskCapacity = disk == nil ? 0 : max(0, diskCapacity)
        self.directory = disk == nil ? nil : directory
        if let directory = self.directory {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        stores = Locked(Stores(memory: MemoryCacheStore(capacity: memoryCapacity), disk: disk))
    }

    /// Bytes of responses held in memory now.
    public var memoryUsage: Int { stores.withLock { $0.memory.usage } }

    /// Bytes of responses held in ``directory`` now (0 without one).
    public var diskUsage: Int { stores.withLock { $0.disk?.usage() ?? 0 } }

    /// Forgets every stored response, in memory and on disk.
    public func removeAll() {
        stores.withLock { stores in
            stores.memory.removeAll()
            stores.disk?.removeAll()
        }
    }

    /// Forgets the responses stored for `url` (every `Vary` variant).
    public func removeResponses(for url: URL) {
        remove(Self.key(for: url))
    }

    // MARK: - For the transfers

    /// The key of a URL: without its fragment, which no server sees.
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        // By bytes: a search by Character (grapheme by grapheme) cost about 20,000 instructions.
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    /// The responses stored for `url`, newest first: from memory, else from disk (then kept in
    /// memory too).
    func stored(forKey key: String) -> [CachedResponse] {
        stores.withLock { stores in
            if let variants = stores.memory.variants(for: key) { return variants }
            guard let variants = stores.disk?.variants(for: key) else { return [] }
            stores.memory.set(variants, for: key)
            return variants
        }
    }

    /// Keeps `response`, replacing a stored one its request matches by `Vary`; at most four
    /// variants a URL, the oldest dropped.
    func store(_ response: CachedResponse, key: String? = nil) {
        let key = key ?? Self.key(for: response.url)
        let fields = Dictionary(response.varying.compactMap { field in field.value.map { (field.name, $0) } }) { first, _ in first }
        stores.withLock { stores in
            var variants = stores.memory.variants(for: key) ?? stores.disk?.variants(for: key) ?? []
            variants.removeAll { $0.matchesVary(of: fields) && Set($0.varying.map(\.name)) == Set(response.varying.map(\.name)) }
            variants.insert(response, at: 0)
            if variants.count > 4 { variants.removeLast(variants.count - 4) }
            stores.memory.set(variants, for: key)
            stores.disk?.set(variants, for: key)
        }
    }

    /// Whether a background refresh of `key` may start now (none is running); then
    /// ``endRefresh(_:)`` must follow.
    func beginRefresh(_ key: String) -> Bool {
        refreshing.withLock { $0.insert(key).inserted }
    }

    func endRefresh(_ key: String) {
        _ = refreshing.withLock { $0.remove(key) }
    }

    func remove(_ key: String) {
        stores.withLock { stores in
            stores.memory.remove(key)
            stores.disk?.remove(key)
        }
    }
}

extension HTTPCache {
    /// `configuration` without a cache of its own, for a session Courier's cache stands in front
    /// of: nothing is then stored twice, and the session never answers from a cache Courier
    /// does not know.
    static func takeOver(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        guard configuration.urlCache != nil, let copy = configuration.copy() as? URLSessionConfiguration else { return configuration }
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        return copy
    }
}
