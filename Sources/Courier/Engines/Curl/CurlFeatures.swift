import CCurl

/// The libcurl under the curl engine: its version and what it can do, read once per process from
/// `curl_version_info` (``Network/Engine/curlFeatures``).
///
/// The curl engine runs on every libcurl from ``minimumVersion`` (7.68.0) on. Where an option
/// Courier uses is newer than the libcurl loaded, the engine takes the older option that does the
/// same; this value says which path it takes, so that a log or `courier --version` can show it.
/// <doc:Engines#Supported-libcurl-versions> lists every option, info code and function with the
/// version that introduced it.
///
/// ```swift
/// if let curl = Network.Engine.curlFeatures {
///     print(curl.version, curl.sslLibrary ?? "no TLS", curl.supportsHTTP2, curl.contentDecoders)
/// }
/// ```
public struct CurlFeatures: Sendable, Hashable, CustomStringConvertible {
    /// The oldest libcurl the curl engine runs on. It needs `curl_multi_poll` (7.66.0) and
    /// `curl_multi_wakeup` (7.68.0); below it libcurl is not used at all, and a `Network` asked
    /// for the curl engine uses URLSession (``Network/Engine/curlUnavailableReason`` says why).
    public static let minimumVersion = versionString(minimumVersionNumber)

    /// libcurl's version, e.g. `7.88.1` (from its version number, not from its version line).
    public let version: String
    /// `LIBCURL_VERSION_NUM`: `0xXXYYZZ`, so `0x075801` is 7.88.1. Compare numbers, not strings.
    public let versionNumber: Int
    /// The TLS library libcurl was built with, as libcurl names it (`OpenSSL/3.0.17`), or `nil`
    /// for a libcurl without TLS (https requests then fail).
    public let sslLibrary: String?
    /// Whether this libcurl speaks HTTP/2 (built with nghttp2). libcurl then offers it to https
    /// servers (ALPN) and uses it where the server agrees; plain http stays HTTP/1.1 unless
    /// ``HTTPVersionPreference/http2PriorKnowledge`` is asked for. Without it every request of
    /// the curl engine uses HTTP/1.1, whatever ``ConnectionOptions/httpVersion`` says.
    public let supportsHTTP2: Bool
    /// Whether this libcurl can connect to a Unix domain socket (`CURL_VERSION_UNIX_SOCKETS`),
    /// as ``ConnectionOptions/unixSocketPath`` asks. Without it such a request fails with
    /// ``NetworkError/curlOptionRefused(option:libcurlVersion:_:)`` naming `CURLOPT_UNIX_SOCKET_PATH`.
    public let supportsUnixSockets: Bool
    /// Whether libcurl numbers its connections (`CURLINFO_CONN_ID`, libcurl 8.2.0 and later),
    /// which ``TransferMetrics/connectionID`` reports; before, it is `nil`.
    public let numbersConnections: Bool
    /// The content codings this libcurl decodes: `gzip` and `deflate` (zlib), `br` (brotli),
    /// `zstd`, as its feature bits say. In-memory bodies in these codings arrive decoded.
    public let contentDecoders: [String]
    /// The option the engine limits every transfer to http and https with:
    /// `CURLOPT_PROTOCOLS_STR` from libcurl 7.85.0 on, the `CURLOPT_PROTOCOLS` bitmask before.
    public let protocolsOption: String
    /// Whether an easy handle carries one transfer after another: before libcurl 7.84.0, and from
    /// 8.1.0 on. From 7.84.0 to 8.0.1 every transfer gets a new one: those versions can write a
    /// reply's folded header line into the previous transfer's freed memory (curl issue #11101;
    /// <doc:Security#Fuzzing-the-curl-engine>). Older ones keep no such pointer: it came with
    /// 7.84.0, when the header store began to unfold folded lines into the last header.
    public let reusesEasyHandles: Bool

    /// Whether `CURLOPT_PROTOCOLS_STR` and `CURLOPT_REDIR_PROTOCOLS_STR` exist (7.85.0+).
    let hasProtocolStringOptions: Bool
    /// What `CURLOPT_ACCEPT_ENCODING` = "" offers, as libcurl writes it (see ``acceptEncodingOffer(decoders:)``).
    let acceptEncodingOffer: String

    /// Decides everything from libcurl's version number and feature bits alone, so that each
    /// version boundary can be checked without that libcurl (see the `…(versionNumber:)` rules).
    init(versionNumber: Int, features: Int32, sslLibrary: String?) {
        self.versionNumber = versionNumber
        version = Self.versionString(versionNumber)
        self.sslLibrary = sslLibrary
        supportsHTTP2 = features & Int32(CCURL_VERSION_HTTP2) != 0
        supportsUnixSockets = features & Int32(CCURL_VERSION_UNIX_SOCKETS) != 0
        numbersConnections = Self.numbersConnections(versionNumber: versionNumber)
        contentDecoders = Self.contentDecoders(features: features)
        acceptEncodingOffer = Self.acceptEncodingOffer(decoders: contentDecoders)
        hasProtocolStringOptions = Self.hasProtocolStringOptions(versionNumber: versionNumber)
        protocolsOption = hasProtocolStringOptions ? "CURLOPT_PROTOCOLS_STR" : "CURLOPT_PROTOCOLS"
        reusesEasyHandles = Self.reusesEasyHandles(versionNumber: versionNumber)
    }

    /// One line: `libcurl 7.88.1: OpenSSL/3.0.17, HTTP/2 yes, decoders gzip deflate br zstd, …`.
    /// A libcurl without HTTP/2 says `HTTP/2 no (requests use HTTP/1.1)`.
    public var description: String {
        "libcurl \(version): TLS \(sslLibrary ?? "none"), HTTP/2 \(supportsHTTP2 ? "yes" : "no (requests use HTTP/1.1)"), "
            + "decoders \(contentDecoders.isEmpty ? "none" : contentDecoders.joined(separator: " ")), "
            + "protocols option \(protocolsOption), "
            + "easy handles \(reusesEasyHandles ? "reused" : "one per transfer (libcurl 7.84.0 to 8.0.1)"), "
            + "Unix sockets \(supportsUnixSockets ? "yes" : "no"), "
            + "connection ids \(numbersConnections ? "yes" : "no (libcurl before 8.2.0)")"
    }

    // MARK: - The version rules

    /// `LIBCURL_VERSION_NUM` of ``minimumVersion``.
    static let minimumVersionNumber = Int(CCURL_MINIMUM_VERSION_NUM)

    /// Whether the engine runs on this libcurl at all (the loader refuses older ones).
    static func isSupported(versionNumber: Int) -> Bool {
        versionNumber >= minimumVersionNumber
    }

    /// `CURLOPT_PROTOCOLS_STR` and `CURLOPT_REDIR_PROTOCOLS_STR` came with 7.85.0; older libcurls
    /// refuse them as unknown options, and take the `CURLOPT_PROTOCOLS` bitmasks instead.
    static func hasProtocolStringOptions(versionNumber: Int) -> Bool {
        versionNumber >= 0x075500
    }

    /// Easy handles are reused except from 7.84.0 to 8.0.1 (see ``reusesEasyHandles``).
    ///
    /// A reused handle saves `curl_easy_init` and the zeroing of its 5 KiB (callgrind, libcurl
    /// 7.74.0: about 12,000 instructions, 6.5% of a small request), on the libcurls of Ubuntu 20.04
    /// and 22.04, Debian 11 and RHEL 9. 7.84.0 brought the header store's `prevhead` pointer
    /// (curl commit c9b60f00), which outlives the transfer; 8.1.0 clears it (cd1c611b).
    static func reusesEasyHandles(versionNumber: Int) -> Bool {
        versionNumber < 0x075400 || versionNumber >= 0x080100
    }

    /// `CURLINFO_CONN_ID` came with 8.2.0; older libcurls refuse it as an unknown info code.
    static func numbersConnections(versionNumber: Int) -> Bool {
        versionNumber >= 0x080200
    }

    /// The `CURLOPT_HTTP_VERSION` value for `preference` on this libcurl: HTTP/1.1 where it has
    /// no HTTP/2 (it refuses the HTTP/2 values then); HTTP/2 by ALPN over TLS (`2TLS`, 7.47.0,
    /// libcurl's own default since 7.62.0, set so that every version behaves alike), or from the
    /// first byte (`2_PRIOR_KNOWLEDGE`, 7.49.0). Both HTTP/2 values predate the 7.68.0 floor.
    func httpVersionOption(for preference: HTTPVersionPreference) -> Int {
        guard supportsHTTP2 else { return Int(CCURL_HTTP_VERSION_1_1) }
        switch preference {
        case .http1_1: return Int(CCURL_HTTP_VERSION_1_1)
        case .http2: return Int(CCURL_HTTP_VERSION_2TLS)
        case .http2PriorKnowledge: return Int(CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
    }

    /// `0x075801` → `7.88.1`.
    static func versionString(_ number: Int) -> String {
        "\(number >> 16 & 0xff).\(number >> 8 & 0xff).\(number & 0xff)"
    }

    /// The codings `CURLOPT_ACCEPT_ENCODING` = "" offers with these feature bits.
    static func contentDecoders(features: Int32) -> [String] {
        var decoders: [String] = []
        if features & Int32(CCURL_VERSION_LIBZ) != 0 { decoders += ["gzip", "deflate"] }
        if features & Int32(CCURL_VERSION_BROTLI) != 0 { decoders.append("br") }
        if features & Int32(CCURL_VERSION_ZSTD) != 0 { decoders.append("zstd") }
        return decoders
    }

    /// The `Accept-Encoding` value libcurl sends for `CURLOPT_ACCEPT_ENCODING` = "": `decoders`
    /// (``contentDecoders``) in libcurl's own order (`deflate, gzip, br, zstd`, every version from
    /// 7.68 to 8.x), `identity` with none. The engine sends this line itself (see
    /// `CurlRequestOptions`): libcurl then skips its own, which it formatted twice a request, a
    /// character at a time.
    static func acceptEncodingOffer(decoders: [String]) -> String {
        let offered = ["deflate", "gzip", "br", "zstd"].filter(decoders.contains)
        return offered.isEmpty ? "identity" : offered.joined(separator: ", ")
    }

    /// The loaded libcurl's, read once; `nil` where the curl engine is unavailable.
    static let loaded: CurlFeatures? = {
        var info = ccurl_version_info_data()
        guard ccurl_version_info(&info) == 0 else { return nil }
        return CurlFeatures(versionNumber: Int(info.version_num), features: info.features,
                            sslLibrary: info.ssl_version.map { String(cString: $0) })
    }()
}
