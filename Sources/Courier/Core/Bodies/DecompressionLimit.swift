/// How far a content-coded body (`Content-Encoding: gzip`, `deflate`, `br`, `zstd`) may inflate
/// when Courier decodes it: a guard against decompression bombs, where a megabyte on the wire
/// becomes a gigabyte in memory or on disk. Set per ``Network`` (``Network/decompressionLimit``).
///
/// A body may decode to ``minimumSize`` bytes whatever its compression, and beyond that to
/// ``ratio`` times the encoded bytes that carried it. Past that the transfer ends with
/// ``NetworkError/limitExceeded(_:)`` (``LimitExceeded/Kind/decompressionRatio``). In-memory
/// bodies are also held to ``Network/maximumResponseSize``, decoded or not.
///
/// Text and JSON compress 5 to 20 times; the default ratio, 100, leaves room for very repetitive
/// data, and a gzip bomb (about 1,000 times) passes neither.
///
/// ```swift
/// network.decompressionLimit = DecompressionLimit(ratio: 1_000, minimumSize: 64 << 20)   // a trusted, repetitive feed
/// ```
///
/// Which bodies are decoded, and how the encoded bytes are counted on each engine, is in
/// <doc:Security#Decompression-bombs>.
public struct DecompressionLimit: Sendable, Hashable {
    /// Decoded bytes allowed per encoded byte received, beyond ``minimumSize``. At least 1.
    public var ratio: Int64 {
        didSet { ratio = max(1, ratio) }
    }
    /// Decoded bytes allowed whatever the ratio, so that small, very compressible bodies pass.
    public var minimumSize: Int64 {
        didSet { minimumSize = max(0, minimumSize) }
    }

    /// Creates a limit; the defaults are ``standard``'s.
    public init(ratio: Int64 = 100, minimumSize: Int64 = 10 << 20) {
        self.ratio = max(1, ratio)
        self.minimumSize = max(0, minimumSize)
    }

    /// 100 times the encoded bytes, and at least 10 MiB.
    public static let standard = DecompressionLimit()

    /// No limit: a body may inflate without bound (in-memory bodies still stop at
    /// ``Network/maximumResponseSize``). Only for servers you trust.
    public static let none = DecompressionLimit(ratio: .max, minimumSize: .max)

    /// The decoded bytes allowed after `encoded` bytes arrived.
    func allowedDecodedBytes(afterEncoded encoded: Int64) -> Int64 {
        let (scaled, overflow) = ratio.multipliedReportingOverflow(by: max(0, encoded))
        return max(minimumSize, overflow ? .max : scaled)
    }
}

/// Counts what a content-coded body decodes to, against the ``DecompressionLimit``, for one
/// response of a transfer.
///
/// The encoded bytes come from the transport where it counts them (the curl engine asks libcurl,
/// `CURLINFO_SIZE_DOWNLOAD_T`, which counts the body as it came off the wire); URLSession counts
/// nothing on Linux (`countOfBytesReceived` stays 0 for data tasks, measured), so there the
/// response's `Content-Length` stands in for them: it counts the encoded bytes, all of them, so
/// the check is looser there, and a body without one (chunked) cannot be checked at all.
struct DecompressionGuard {
    let limit: DecompressionLimit
    /// The encoded length the response announced, for transports that count nothing.
    let announcedEncodedLength: Int64?
    /// Decoded bytes taken so far.
    private(set) var decoded: Int64 = 0

    /// A guard for `head`, or `nil` when its body arrives as it was sent (nothing to inflate).
    init?(head: HTTPResponse, limit: DecompressionLimit) {
        guard head.isContentCoded, head.decodesContent, limit != .none else { return nil }
        self.limit = limit
        let length = head.headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        announcedEncodedLength = length.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Checks a chunk of `count` decoded bytes, when `encoded` encoded bytes have arrived (`nil`:
    /// the transport cannot tell); the error that ends the transfer when it is one too many.
    /// A chunk that is refused for flow control is checked again when it comes back: call
    /// ``taken(_:)`` only for the chunks the body took.
    func check(_ count: Int, encoded: Int64?) -> NetworkError? {
        // Both are upper bounds of the encoded bytes so far (libcurl's count may run one read
        // ahead on the curl engine): the smaller is the tighter.
        guard let encoded = [encoded, announcedEncodedLength].compactMap({ $0 }).min() else { return nil }
        let total = decoded + Int64(count)
        let allowed = limit.allowedDecodedBytes(afterEncoded: encoded)
        guard total > allowed else { return nil }
        return .limitExceeded(LimitExceeded(kind: .decompressionRatio, limit: allowed, received: total, encodedBytes: encoded))
    }

    /// Counts a chunk the body took.
    mutating func taken(_ count: Int) {
        decoded += Int64(count)
    }

    /// Uncounts a chunk the body refused after all (flow control): it will be offered again.
    mutating func returned(_ count: Int) {
        decoded -= Int64(count)
    }
}
