import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the server answered: status, headers, the final URL and the body bytes.
///
/// Every error that comes from a response (``NetworkError/httpStatus(_:)``,
/// ``NetworkError/decodingFailed(_:_:)``) carries one of these, so nothing the server said is lost.
///
/// Two responses are equal when their status, headers, URL, body and HTTP version are: their
/// ``metrics`` (when and how the bytes came) take no part in equality or hashing.
public struct HTTPResponse: Sendable, Hashable {
    /// The parts, shared by the copies until one changes (copy on write): a response is handed
    /// from the engine to the body, the judging, the completion and any error that carries it,
    /// and as nine stored parts each copy was five retains and as many releases (about 10k
    /// instructions of a small request, Docs/Performance.md); one reference is one.
    /// The parts as plain values; a copy of the storage is a copy of these (as in
    /// ``TransferMetrics``), so no part can be left out of it.
    private struct Parts {
        var statusCode: Int
        var headers: HTTPHeaders {
            didSet { framing = Framing(headers) }
        }
        /// Read from ``headers`` whenever they are set: each fact is asked more than once on the
        /// way in, and each ask would be a lookup.
        private(set) var framing: Framing
        var url: URL?
        var body: Data
        var decodesContent = true
        var httpVersion: HTTPVersion
        var metrics: TransferMetrics?
        var cacheStatus: CacheStatus = .network
        var headBytes: Data?

        init(statusCode: Int, headers: HTTPHeaders, url: URL?, body: Data, httpVersion: HTTPVersion, metrics: TransferMetrics?) {
            self.statusCode = statusCode
            self.headers = headers
            framing = Framing(headers)
            self.url = url
            self.body = body
            self.httpVersion = httpVersion
            self.metrics = metrics
        }
    }

    /// What the headers say of the body's framing.
    private struct Framing {
        /// Whether the body travels content-coded: the engine, the body and the decompression
        /// guard each ask.
        let isContentCoded: Bool
        /// The first `Content-Length` and whether another follows it: the framing check and
        /// the expected length both ask.
        let contentLength: (value: String?, repeated: Bool)

        init(_ headers: HTTPHeaders) {
            isContentCoded = HTTPResponse.isContentCoded(headers)
            contentLength = headers.firstValue(of: "Content-Length")
        }
    }

    private final class Storage: @unchecked Sendable {
        // @unchecked: changed only through an HTTPResponse that holds the one reference
        // (`isKnownUniquelyReferenced`), so never while another thread can see it.
        // Unchecked for overlapping access too: every access is one get or one set of the
        // response's own accessors below, none calling out while it lasts, so Swift's run-time
        // check (about 80 instructions on every read of a response's field) could never fail.
        @exclusivity(unchecked) var parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private var storage: Storage

    /// The parts, to be changed: this value's own from now on.
    private mutating func changing() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.parts) }
        return storage
    }

    /// The HTTP status code, e.g. `200`.
    public var statusCode: Int {
        get { storage.parts.statusCode }
        set { changing().parts.statusCode = newValue }
    }
    /// The response header fields, with case-insensitive lookup.
    public var headers: HTTPHeaders {
        get { storage.parts.headers }
        set { changing().parts.headers = newValue }
    }
    /// The URL that answered, after any redirects.
    public var url: URL? {
        get { storage.parts.url }
        set { changing().parts.url = newValue }
    }
    /// The body bytes as received: decoded from their `Content-Encoding` (gzip, ...) when the
    /// request asked for a coding, as in-memory and streamed requests do by default; as sent
    /// when it did not (a download asks for `identity`: see <doc:Security#Decompression-bombs>).
    public var body: Data {
        get { storage.parts.body }
        set { changing().parts.body = newValue }
    }
    /// Whether a content-coded body reaches Courier decoded: URLSession always decodes; the curl
    /// engine only when the request asked for a coding. Set by the engine that made the value.
    var decodesContent: Bool {
        get { storage.parts.decodesContent }
        set { changing().parts.decodesContent = newValue }
    }
    /// The version of HTTP the response came over: `HTTP/2`, `HTTP/1.1`, ... (see
    /// ``HTTPVersion``; ``HTTPVersion/unknown`` on URLSession on Linux, which does not say).
    ///
    /// ```swift
    /// let page = try network.scheduleSynchronously(Request<Data>.get(url).withResponse()).get()
    /// print(page.response.httpVersion)   // HTTP/2
    /// ```
    public var httpVersion: HTTPVersion {
        get { storage.parts.httpVersion }
        set { changing().parts.httpVersion = newValue }
    }
    /// Where the time of the attempt that produced this response went, its connection and its
    /// bytes (see ``TransferMetrics``): set on a complete response (an in-memory output, a
    /// stream's completion, a response an error carries); `nil` on a head handed over before
    /// its body (a stream's `onResponse`, an observer's view of a download) and on values made
    /// by hand. Not part of equality.
    ///
    /// ```swift
    /// let page = try await network.response(for: Request<Data>.get(url).withResponse())
    /// print(page.response.metrics?.firstByte ?? .nan, page.response.metrics?.total ?? .nan)
    /// ```
    public var metrics: TransferMetrics? {
        get { storage.parts.metrics }
        set { changing().parts.metrics = newValue }
    }
    /// Whether this response came from the network's ``HTTPCache`` (``CacheStatus/cached``,
    /// ``CacheStatus/revalidated``, ``CacheStatus/staleAfterError``) or from the server
    /// (``CacheStatus/network``, also where the network has no cache). Not part of equality.
    public var cacheStatus: CacheStatus {
        get { storage.parts.cacheStatus }
        set { changing().parts.cacheStatus = newValue }
    }
    /// Whether the body travels content-coded (see ``isContentCoded(_:)``), as the headers said
    /// when they were set.
    var isContentCoded: Bool { storage.parts.framing.isContentCoded }

    /// The first `Content-Length` field's value, and whether another such field follows (kept
    /// with the headers; see ``ResponseHeadCheck``).
    var contentLengthField: (value: String?, repeated: Bool) { storage.parts.framing.contentLength }
    /// The head's lines as they arrived (status line, fields, the empty line, each with its own
    /// line ending), the interim heads before it (`100 Continue`, a challenge libcurl answered)
    /// first: what curl's `-i` and `-D` write. Set by the curl engine when the network keeps
    /// them (``ConnectionOptions/keepsHeadBytes``); `nil` otherwise. Not part of equality.
    package var headBytes: Data? {
        get { storage.parts.headBytes }
        set { changing().parts.headBytes = newValue }
    }

    /// Creates a response value, e.g. for tests or a stub transport.
    public init(statusCode: Int, headers: HTTPHeaders = [:], url: URL? = nil, body: Data = Data(),
                httpVersion: HTTPVersion = .http1_1, metrics: TransferMetrics? = nil) {
        storage = Storage(Parts(statusCode: statusCode, headers: headers, url: url, body: body, httpVersion: httpVersion, metrics: metrics))
    }

    /// Status, headers, URL, body and HTTP version; not ``metrics``.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.statusCode == rhs.statusCode && lhs.httpVersion == rhs.httpVersion && lhs.url == rhs.url
            && lhs.headers == rhs.headers && lhs.body == rhs.body
    }

    /// Hashes what `==` compares: everything but ``metrics``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(httpVersion)
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(body)
    }

    /// The same response with the metrics of the transfer that brought it; the HTTP version they
    /// name fills in one the head did not know (Apple's URLSession reports it only there).
    func adding(_ metrics: TransferMetrics?) -> HTTPResponse {
        var copy = self
        copy.add(metrics)
        return copy
    }

    /// Adds the metrics in place (see ``adding(_:)``): no copy of the response.
    mutating func add(_ metrics: TransferMetrics?) {
        guard let metrics else { return }
        self.metrics = metrics
        if httpVersion == .unknown, let version = metrics.httpVersion { httpVersion = version }
    }

    /// Whether the status is in `200..<300`.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// The body decoded as UTF-8 (invalid sequences repaired), for messages and logs.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first bytes of the body as quoted text for an error message: at most 64 bytes, invalid
    /// UTF-8 repaired, control characters escaped, `…` when cut.
    var bodyPreview: String {
        let limit = 64
        var preview = String(decoding: body.prefix(limit), as: UTF8.self).debugDescription
        if body.count > limit { preview += "…" }
        return preview
    }
}

extension HTTPResponse {
    private static func precedesIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        func folded(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) { folded($0) < folded($1) }
    }

    /// Builds the value from what URLSession delivered.
    /// The body length the head announces, as the body arrives: `Content-Length`, or -1 when
    /// there is none (chunked, close-delimited), when it is not one clean number, or when the
    /// body is content-encoded and arrives decoded (the announced length is then not its length).
    ///
    /// ```swift
    /// network.stream(request, onResponse: { head in
    ///     if head.expectedContentLength > 1 << 30 { print("more than a GiB on its way") }
    /// }, onData: { _ in }, completion: { _ in })
    /// ```
    public var expectedContentLength: Int64 {
        if arrivesDecoded { return -1 }
        guard let value = storage.parts.framing.contentLength.value, let length = Int64(value), length >= 0 else { return -1 }
        return length
    }

    init(_ response: HTTPURLResponse, body: Data) {
        // URLSession hands headers over as an unordered dictionary; sort by name so the value
        // is deterministic (equal responses compare equal, logs are stable). Names are ASCII
        // tokens: compared byte by byte without case, with no lowered copies.
        let fields = response.allHeaderFields.map { key, value in
            (name: key.base as? String ?? String(describing: key), value: value as? String ?? String(describing: value))
        }.sorted { Self.precedesIgnoringASCIICase($0.name, $1.name) }
        // FoundationNetworking drops the status line's version (Apple's URLSession reports it in
        // its task metrics, at the end): not known here.
        self.init(statusCode: response.statusCode, headers: HTTPHeaders(fields), url: response.url, body: body,
                  httpVersion: .unknown)
    }
}
