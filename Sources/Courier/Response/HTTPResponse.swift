import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the server answered: status, headers, the final URL and the body bytes.
///
/// Every error that comes from a response (``NetworkError/httpStatus(_:)``,
/// ``NetworkError/decodingFailed(_:_:)``) carries one of these, so nothing the server said is lost.
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code, e.g. `200`.
    public var statusCode: Int
    /// The response header fields, with case-insensitive lookup.
    public var headers: HTTPHeaders
    /// The URL that answered, after any redirects.
    public var url: URL?
    /// The body bytes as received: decoded from their `Content-Encoding` (gzip, ...) when the
    /// request asked for a coding, as in-memory and streamed requests do by default; as sent
    /// when it did not (a download asks for `identity`: see <doc:Security#Decompression-bombs>).
    public var body: Data
    /// Whether a content-coded body reaches Courier decoded: URLSession always decodes; the curl
    /// engine only when the request asked for a coding. Set by the engine that made the value.
    var decodesContent = true

    /// Creates a response value, e.g. for tests or a stub transport.
    public init(statusCode: Int, headers: HTTPHeaders = [:], url: URL? = nil, body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.body = body
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
        guard let value = headers["Content-Length"], let length = Int64(value), length >= 0 else { return -1 }
        return length
    }

    init(_ response: HTTPURLResponse, body: Data) {
        // URLSession hands headers over as an unordered dictionary; sort by name so the value
        // is deterministic (equal responses compare equal, logs are stable). Names are ASCII
        // tokens: compared byte by byte without case, with no lowered copies.
        let fields = response.allHeaderFields.map { key, value in
            (name: key.base as? String ?? String(describing: key), value: value as? String ?? String(describing: value))
        }.sorted { Self.precedesIgnoringASCIICase($0.name, $1.name) }
        self.init(statusCode: response.statusCode, headers: HTTPHeaders(fields), url: response.url, body: body)
    }
}
