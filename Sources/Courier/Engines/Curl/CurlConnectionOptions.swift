import CCurl
import Foundation

/// Sets an easy handle up for the network's ``ConnectionOptions`` and the request's own rate
/// limit: the HTTP version, waiting to multiplex, a Unix domain socket, the rate limits, and the
/// libcurl options passed through as they are (``CurlPassThrough``).
///
/// Every option here predates libcurl 7.68.0, the engine's floor (the Engines article lists each
/// with its version); the HTTP/2 values of `CURLOPT_HTTP_VERSION` also need a libcurl built with
/// HTTP/2, which ``CurlFeatures/httpVersionOption(for:)`` checks.
enum CurlConnectionOptions {
    /// - Parameters:
    ///   - usesTLS: Whether the request is https (``isHTTPS(_:)``).
    ///   - httpVersion: The request's own preference (``TransferOptions/httpVersion``), over the
    ///     network's.
    static func apply(to easy: OpaquePointer, usesTLS: Bool, settings: CurlSettings, rateLimit: RateLimit?,
                      httpVersion: HTTPVersionPreference? = nil) throws {
        var options = CurlOptionSetter(easy: easy)
        let preference = httpVersion ?? settings.connection.httpVersion
        let version = settings.features.httpVersionOption(for: preference)
        // Every libcurl from the 7.68.0 floor defaults to 2TLS with HTTP/2 (7.62.0 on) and to
        // 1.1 without: the default preference needs no call, which a small request notices.
        if preference != .http2 {
            options.set(Int32(CCURLOPT_HTTP_VERSION), version)
        }
        // A transfer that starts while the first connection to its origin is still being made
        // would open a connection of its own; waiting to learn whether that one multiplexes lets
        // every request to an HTTP/2 origin share it. Only where HTTP/2 can happen: over plain
        // http with 2TLS the wait would only delay the second request.
        if version == Int(CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) || (version == Int(CCURL_HTTP_VERSION_2TLS) && usesTLS) {
            options.set(Int32(CCURLOPT_PIPEWAIT), 1)
        }
        if let path = settings.connection.unixSocketPath {
            options.set(Int32(CCURLOPT_UNIX_SOCKET_PATH), path)
        }
        let limit = (rateLimit ?? RateLimit()).over(settings.connection.rateLimit)
        if let receive = limit.receiveBytesPerSecond {
            options.set(Int32(CCURLOPT_MAX_RECV_SPEED_LARGE), offset: receive)
            if let size = receiveBufferSize(for: receive) { options.set(Int32(CCURLOPT_BUFFERSIZE), size) }
        }
        if let send = limit.sendBytesPerSecond { options.set(Int32(CCURLOPT_MAX_SEND_SPEED_LARGE), offset: send) }
        // Nothing set for the defaults: a transfer without any of it costs no calls.
        if settings.passesLibcurlOptions {
            CurlPassThrough.apply(settings.connection.libcurl, lists: settings.hostLists, to: &options)
        }
        try options.check()
    }

    /// Whether `url` is https, its scheme compared without case and without making a lowered copy.
    static func isHTTPS(_ url: URL?) -> Bool {
        guard let scheme = url?.scheme, scheme.utf8.count == 5 else { return false }
        return zip(scheme.utf8, "https".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Whether an absolute URL's text (`URL.absoluteString`, which starts with its scheme) is
    /// https: `https:` at its start, without case.
    static func isHTTPS(absoluteURL: String) -> Bool {
        var text = absoluteURL.utf8.makeIterator()
        for expected in "https:".utf8 {
            guard let byte = text.next() else { return false }
            // The letters without case: an upper-case ASCII letter is its lower case less 0x20.
            let matches = byte == expected || (expected != UInt8(ascii: ":") && byte == expected - 0x20)
            if !matches { return false }
        }
        return true
    }

    /// libcurl's receive buffer for a transfer limited to `rate` bytes/s, or `nil` for its default.
    ///
    /// libcurl checks the rate between reads of up to 100 buffers (16 KiB by default) each: on a
    /// fast network a whole such burst, 1.6 MiB, arrives before it first pauses, so a body of that
    /// size is not limited at all (measured with 7.88.1 on loopback: 256 KiB at a 128 KiB/s limit
    /// in 3 ms). A buffer of a hundredth of the rate keeps the burst to about a second's worth,
    /// as curl's own tool does by shrinking its buffer for `--limit-rate`. libcurl takes 1 KiB
    /// at least.
    static func receiveBufferSize(for rate: Int64) -> Int? {
        let defaultSize = 16 << 10
        guard rate / 100 < Int64(defaultSize) else { return nil }
        return Int(max(1 << 10, rate / 100))
    }
}
