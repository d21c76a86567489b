import CCurl

/// libcurl, opened once per process with `dlopen` (see the CCurl target): the same
/// `libcurl.so.4` FoundationNetworking itself loads on Linux, `/usr/lib/libcurl.4.dylib` on
/// Apple platforms.
enum CurlLibrary {
    /// Why libcurl cannot be used, or `nil` once it is loaded and initialised.
    static let unavailableReason: String? = {
        var reason = [CChar](repeating: 0, count: 256)
        guard ccurl_load(&reason, reason.count) != 0 else { return nil }
        return String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// libcurl's version line, e.g. `libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 brotli/1.0.9`.
    static var version: String? {
        guard unavailableReason == nil, let line = ccurl_version() else { return nil }
        return String(cString: line)
    }

    /// Whether an easy handle may carry one transfer after another (reset in between): except on
    /// libcurl 7.84.0 to 8.0.1 (``CurlFeatures/reusesEasyHandles``, decided by the version number).
    static var reusesEasyHandles: Bool { CurlFeatures.loaded?.reusesEasyHandles ?? false }
}
