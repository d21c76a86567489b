import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// The HTTP cache this network's requests use (see ``HTTPCache`` and <doc:Caching>), or `nil`
    /// for none. Made from the configuration's `urlCache` (memory only, with its memory
    /// capacity; every network made with the same `URLCache` shares it), so a network made from
    /// `.default` or `.ephemeral` caches as URLSession does on Apple platforms. Thread-safe;
    /// applies to requests scheduled afterwards.
    ///
    /// ```swift
    /// let network = Network()
    /// network.cache = HTTPCache(memoryCapacity: 20 << 20)   // a cache of its own
    /// network.cache = nil                                     // or none: every request reaches the server
    /// ```
    public var cache: HTTPCache? {
        get { core.settingsSnapshot().cache }
        set { core.changeSettings { $0.cache = newValue } }
    }
}
