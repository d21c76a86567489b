import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// Opens a WebSocket to `url` (`ws://` or `wss://`) and returns it at once; it connects on a
    /// thread of its own.
    ///
    /// The connection is libcurl's, made with this network's settings as any request's: its
    /// ``TLSOptions``, proxy (always as a `CONNECT` tunnel), Unix socket and connect timeout. The
    /// opening handshake carries the network's default headers, `User-Agent` and cookies, then
    /// `options.headers`. On a URLSession network the curl engine carries the socket where libcurl
    /// loads (FoundationNetworking's own WebSockets depend on how its libcurl was built);
    /// otherwise, and on a stub network, the socket ends at once with
    /// ``WebSocketError/unavailable(_:)``.
    ///
    /// ```swift
    /// let socket = network.webSocket(URL(string: "wss://echo.example/chat")!, callbackQueue: .main,
    ///                                onMessage: { message, socket in print(message) },
    ///                                onEnd: { end in print("ended:", end) })
    /// socket.send(.text("hello")) { error in if let error { print(error) } }
    /// ```
    ///
    /// - Parameters:
    ///   - url: Where to connect: `ws://` or `wss://` (`http://` and `https://` are taken as them).
    ///   - options: Subprotocols, extra headers, limits and timeouts.
    ///   - callbackQueue: Where `onOpen`, `onMessage`, `onEnd` and send completions run, one at a
    ///     time and in order; the network's ``callbackQueue`` by default.
    ///   - onOpen: The server's `101`, once the handshake succeeded, with its metrics (the time
    ///     from the start to the `101`). The network's observers see the upgrade as a request:
    ///     `willSend` with the handshake's `GET`, `didReceive` with the server's answer (the
    ///     `101`, or the status that refused it), and `didFail` if the socket never opened.
    ///   - onMessage: Each message, with the socket (to answer on). Without it, messages wait for
    ///     ``WebSocketTask/receive(timeout:)`` or ``WebSocketTask/messages``.
    ///   - onEnd: How the socket ended: called exactly once, after every message.
    @discardableResult
    public func webSocket(_ url: URL, options: WebSocketOptions = WebSocketOptions(), callbackQueue: DispatchQueue? = nil,
                          onOpen: (@Sendable (HTTPResponse) -> Void)? = nil,
                          onMessage: (@Sendable (WebSocketMessage, WebSocketTask) -> Void)? = nil,
                          onEnd: (@Sendable (WebSocketEnd) -> Void)? = nil) -> WebSocketTask {
        let task = WebSocketTask(url: url, options: options, callbackQueue: callbackQueue ?? self.callbackQueue,
                                 onOpen: onOpen, onMessage: onMessage, onEnd: onEnd)
        let settings: CurlSettings
        switch webSocketSettings() {
        case let .success(found): settings = found
        case let .failure(error):
            task.finish(.failed(error))
            return task
        }
        guard ["ws", "wss", "http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            task.finish(.failed(.connectionFailed(.invalidURL(Redaction.standard.redact(urlString: url.absoluteString)))))
            return task
        }
        let core = self.core
        let headers: WebSocketConnectionLoop.Headers = { next in
            var options = options
            // A redirect to another origin does not take the caller's credentials along.
            if !WebSocketRedirect.sameOrigin(url, next) {
                options.headers.removeAll { ["authorization", "cookie"].contains($0.name.lowercased()) }
            }
            return Self.webSocketHeaders(for: next, core: core, settings: settings, options: options)
        }
        let connectTimeout = core.timeouts.connectTimeout ?? core.timeouts.idleTimeout
        // The network's observers see the upgrade as a request: its GET, its 101 (or the answer
        // that refused it), or why it failed.
        let observers = WebSocketUpgradeObservers(observers: core.settingsSnapshot().observers,
                                                  context: RequestContext(id: core.nextTransferID(), attempt: 1, method: .get, url: url))
        let loop = WebSocketConnectionLoop(task: task, headers: headers, observers: observers) { url, timeout, isCancelled throws(WebSocketError) in
            try CurlWebSocketConnection.open(url: url, settings: settings, timeout: timeout, connectTimeout: connectTimeout,
                                             isCancelled: isCancelled)
        }
        loop.start()
        return task
    }

    /// The curl settings a socket of this network connects with, or why it cannot.
    private func webSocketSettings() -> Result<CurlSettings, WebSocketError> {
        if let curl = core.transport as? CurlTransport { return .success(curl.settings) }
        guard engine == .urlSession, let session = core.transport as? URLSession else {
            return .failure(.unavailable("a \(engine.rawValue) network has no connections to upgrade"))
        }
        if let setting = core.unsupportedSetting { return .failure(.connectionFailed(setting)) }
        guard CurlLibrary.unavailableReason == nil, let features = CurlFeatures.loaded else {
            return .failure(.unavailable("WebSockets need the curl engine, and it cannot be used here: "
                + (CurlLibrary.unavailableReason ?? "libcurl is not loaded")))
        }
        // The session's configuration: its proxies, headers and timeout, with default TLS and
        // connection options (a URLSession network cannot have others: unsupportedSetting).
        let configuration = CurlConfiguration(session.configuration, tls: TLSOptions(), connection: ConnectionOptions())
        return .success(CurlSettings(configuration: configuration, features: features))
    }

    /// The handshake's extra fields: the configuration's, the network's defaults and
    /// `User-Agent`, its cookies for the URL, then the options' (a later field replaces an
    /// earlier one of the same name). The handshake's own fields are never taken from the first three.
    private static func webSocketHeaders(for url: URL, core: NetworkCore, settings: CurlSettings,
                                         options: WebSocketOptions) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String) {
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            fields.append((name, value))
        }
        let inherited = settings.additionalHeaders + core.defaults.withLock { $0.headers }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for (name, value) in inherited where !WebSocketHandshake.reservedNames.contains(name.lowercased()) { add(name, value) }
        if let agent = core.userAgent.withLock({ $0 }) { add("User-Agent", agent) }
        let httpURL = CurlWebSocketConnection.httpURL(for: url)
        if let cookie = core.sessionCookies?.applying(to: WireRequest(url: httpURL)).value(for: "Cookie") {
            add("Cookie", cookie)
        }
        for (name, value) in options.headers { add(name, value) }
        return fields
    }
}
