import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// The `User-Agent` sent with every request that does not name one itself (in its
    /// ``NetworkRequest/headers`` or the network's ``defaults``). Thread-safe; applies to requests
    /// scheduled afterwards.
    ///
    /// Default: `CourierVersion.userAgent` (`Courier/0.1.0`) on both engines, as curl sends
    /// `curl/VERSION`: many APIs (GitHub's among them) refuse a request without one. When the
    /// configuration's `httpAdditionalHeaders` names a `User-Agent`, that one is the default.
    ///
    /// `nil` adds none: the curl engine then sends no `User-Agent` at all (as `curl -A ''`);
    /// URLSession adds its own (on Linux, `<process name> (unknown version) curl/<libcurl version>`).
    /// A value with CR, LF or another control character fails each request that would send it
    /// with ``NetworkError/invalidRequest(_:)``, as any header field does.
    ///
    /// ```swift
    /// network.userAgent = "inventory-sync/2.1 (ops@example.com)"
    /// var request = Request<Data>.get(url)
    /// request.headers["User-Agent"] = "one-off/1.0"   // this request alone
    /// ```
    public var userAgent: String? {
        get { core.userAgent.withLock { $0 } }
        set { core.userAgent.withLock { $0 = newValue } }
    }

    /// Whether requests follow redirects (`301`, `302`, `303`, `307`, `308` with a `Location`).
    /// Thread-safe; applies to requests scheduled afterwards. Default: `true`, up to
    /// ``maximumRedirects``, by the rules of `RedirectPolicy` (<doc:Resilience#Redirects>).
    ///
    /// `false` makes the redirect response itself the answer, on both engines, as curl without
    /// `-L`: its status, headers (`Location` among them) and body reach the request like any
    /// other response. An in-memory request then fails with ``NetworkError/httpStatus(_:)`` unless
    /// it accepts the status; a stream or a download gets the redirect's body.
    ///
    /// ```swift
    /// network.followsRedirects = false
    /// var request = Request<Data>.get(shortLink)
    /// request.acceptedStatusCodes = Set(200..<400)
    /// let response = try network.scheduleSynchronously(request.withResponse()).get().response
    /// print(response.headers["Location"] ?? "not a redirect")
    /// ```
    public var followsRedirects: Bool {
        get { core.settingsSnapshot().followsRedirects }
        set { core.changeSettings { $0.followsRedirects = newValue } }
    }

    /// Whether the engine offers compressed content codings and decodes what comes back coded.
    /// Thread-safe; applies to requests scheduled afterwards. Default: `true`.
    ///
    /// - `true`: a request that sets no `Accept-Encoding` offers every coding the engine can
    ///   decode (libcurl's `gzip`, `deflate`, `br`, `zstd`), and a coded body arrives decoded.
    /// - `false` (the curl engine): no `Accept-Encoding` is added and nothing is decoded: every
    ///   body arrives exactly as the server sent it, coded or not, as with curl without
    ///   `--compressed`. An `Accept-Encoding` the request sets itself is sent as it is, and the
    ///   body it brings is not decoded either.
    ///
    /// URLSession (on Linux as on Apple platforms) always offers its codings and always decodes:
    /// it has no way to turn either off, so there this setting changes nothing.
    public var decompressesResponses: Bool {
        get { core.settingsSnapshot().decompressesResponses }
        set { core.changeSettings { $0.decompressesResponses = newValue } }
    }
}
