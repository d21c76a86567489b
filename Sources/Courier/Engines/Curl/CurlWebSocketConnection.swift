import CCurl
import Foundation

/// The connection a WebSocket runs over, made and kept by libcurl: `CURLOPT_CONNECT_ONLY` has
/// libcurl resolve, connect (through the network's proxy, with `CONNECT` for ws:// as for
/// wss://, or to its Unix socket) and do TLS with the network's ``TLSOptions``; Courier then
/// writes the upgrade and the frames itself with `curl_easy_send` and reads with
/// `curl_easy_recv`, waiting with `poll` on `CURLINFO_ACTIVESOCKET`.
///
/// The easy interface, not the loop's multi handle: a connect-only transfer is finished for the
/// multi handle once connected, and its socket must not be watched by two pollers. Every call
/// is made on the socket's own thread (``WebSocketConnectionLoop``). Each function and option
/// used is in libcurl 7.68.0 already (the floor): `CURLOPT_CONNECT_ONLY` 7.15.2,
/// `curl_easy_send`/`recv` 7.18.2, `CURLINFO_ACTIVESOCKET` 7.45.0 (so `CURLINFO_LASTSOCKET`, whose
/// `long` is too narrow on Windows, is never needed).
final class CurlWebSocketConnection: WebSocketByteStream {
    private let easy: OpaquePointer
    let socket: Int32

    private init(easy: OpaquePointer, socket: Int32) {
        self.easy = easy
        self.socket = socket
    }

    deinit { ccurl_easy_cleanup(easy) }

    /// Connects to `url` (ws and wss are taken as http and https) with the network's settings,
    /// within `timeout` seconds and the network's `connectTimeout` (``ConnectionOptions/connectTimeout``,
    /// else its idle timeout); `isCancelled` is asked while libcurl works, which stops it.
    static func open(url: URL, settings: CurlSettings, timeout: TimeInterval, connectTimeout: TimeInterval?,
                     isCancelled: @escaping @Sendable () -> Bool) throws(WebSocketError) -> CurlWebSocketConnection {
        if let reason = CurlLibrary.unavailableReason { throw .unavailable(reason) }
        guard let easy = ccurl_easy_init() else { throw .unavailable("curl_easy_init failed") }
        let httpURL = Self.httpURL(for: url)
        let watch = Watch(deadline: Date().addingTimeInterval(timeout), isCancelled: isCancelled)
        let context = Unmanaged.passRetained(watch)
        defer { context.release() }
        var errorBuffer = [CChar](repeating: 0, count: 256)   // CURL_ERROR_SIZE
        let code: Int32 = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var options = CurlOptionSetter(easy: easy)
            options.set(Int32(CCURLOPT_ERRORBUFFER), pointer: UnsafeRawPointer(buffer.baseAddress))
            options.set(Int32(CCURLOPT_URL), httpURL.absoluteString)
            options.set(Int32(CCURLOPT_NOSIGNAL), 1)
            options.set(Int32(CCURLOPT_CONNECT_ONLY), 1)
            if settings.features.hasProtocolStringOptions {
                options.set(Int32(CCURLOPT_PROTOCOLS_STR), "http,https")
            } else {
                options.set(Int32(CCURLOPT_PROTOCOLS), Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS))
            }
            // A proxy (the network's or the environment's) is always a tunnel: the upgrade must
            // reach the server itself, so ws:// uses CONNECT as wss:// does.
            options.set(Int32(CCURLOPT_HTTPPROXYTUNNEL), 1)
            if let proxies = settings.proxies {
                let proxy = proxies.proxy(for: httpURL)
                options.set(Int32(CCURLOPT_PROXY), proxy?.host ?? "")
                if let port = proxy?.port { options.set(Int32(CCURLOPT_PROXYPORT), port) }
            }
            settings.tls.apply(to: &options)
            func positive(_ seconds: Double) -> Double { seconds.isFinite && seconds > 0 ? seconds : .infinity }
            let connectLimit = min(positive(timeout), positive(connectTimeout ?? .infinity), 86_400)
            if connectLimit.isFinite { options.set(Int32(CCURLOPT_CONNECTTIMEOUT_MS), Int((connectLimit * 1000).rounded(.up))) }
            options.set(Int32(CCURLOPT_NOPROGRESS), 0)
            options.set(Int32(CCURLOPT_XFERINFOFUNCTION), webSocketConnectProgress)
            options.set(Int32(CCURLOPT_XFERINFODATA), pointer: context.toOpaque())
            do {
                try options.check()
                // The Unix socket and rate limits as for any request, then HTTP/1.1 whatever the
                // network's HTTP version: the upgrade is HTTP/1.1 (RFC 6455), and over TLS the
                // ALPN offer must not let the server choose h2.
                try CurlConnectionOptions.apply(to: easy, usesTLS: CurlConnectionOptions.isHTTPS(httpURL), settings: settings, rateLimit: nil)
            } catch { return -1 }
            var version = CurlOptionSetter(easy: easy)
            version.set(Int32(CCURLOPT_HTTP_VERSION), Int(CCURL_HTTP_VERSION_1_1))
            return ccurl_easy_perform(easy)
        }
        if code == -1 {
            ccurl_easy_cleanup(easy)
            throw .unavailable("libcurl refused an option a WebSocket needs")
        }
        guard code == CCURLE_OK else {
            ccurl_easy_cleanup(easy)
            if watch.isCancelled() { throw .cancelled }
            if code == CCURLE_ABORTED_BY_CALLBACK || code == CCURLE_OPERATION_TIMEDOUT {
                throw .timedOut("the connection was not made within \(timeout) s")
            }
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .connectionFailed(CurlFailure(code: code, detail: detail.isEmpty ? nil : detail, url: httpURL).networkError)
        }
        var socket: Int32 = -1
        guard ccurl_easy_getinfo_socket(easy, Int32(CCURLINFO_ACTIVESOCKET), &socket) == CCURLE_OK, socket >= 0 else {
            ccurl_easy_cleanup(easy)
            throw .connectionLost("libcurl gave no socket for the connection")
        }
        return CurlWebSocketConnection(easy: easy, socket: socket)
    }

    /// `url` with ws/wss as http/https: the schemes libcurl connects with (7.68.0 has no ws).
    static func httpURL(for url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        switch components.scheme?.lowercased() {
        case "ws"?: components.scheme = "http"
        case "wss"?: components.scheme = "https"
        default: break
        }
        return components.url ?? url
    }

    func send(_ bytes: UnsafeRawBufferPointer) throws(WebSocketError) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        var sent = 0
        let code = ccurl_easy_send(easy, base, bytes.count, &sent)
        if code == CCURLE_AGAIN { return 0 }
        guard code == CCURLE_OK else { throw .connectionLost(String(cString: ccurl_easy_strerror(code))) }
        return sent
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(WebSocketError) -> Int? {
        var received = 0
        let code = ccurl_easy_recv(easy, buffer.baseAddress, buffer.count, &received)
        if code == CCURLE_AGAIN { return nil }
        guard code == CCURLE_OK else { throw .connectionLost(String(cString: ccurl_easy_strerror(code))) }
        return received
    }

    /// What the progress callback checks while libcurl connects.
    private final class Watch: Sendable {
        let deadline: Date
        let isCancelled: @Sendable () -> Bool
        init(deadline: Date, isCancelled: @escaping @Sendable () -> Bool) {
            self.deadline = deadline
            self.isCancelled = isCancelled
        }
    }

    fileprivate static func shouldStop(_ context: UnsafeMutableRawPointer?) -> Bool {
        guard let context else { return false }
        let watch = Unmanaged<Watch>.fromOpaque(context).takeUnretainedValue()
        return watch.isCancelled() || Date() >= watch.deadline
    }
}

/// Stops libcurl's connect (returning non-zero aborts it) when the socket is cancelled or its
/// handshake time is up: libcurl calls this about once a second, and more often while it works.
private let webSocketConnectProgress: ccurl_progress_callback = { context, _, _, _, _ in
    CurlWebSocketConnection.shouldStop(context) ? 1 : 0
}
