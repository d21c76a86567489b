import Foundation

/// Where a redirect of the opening handshake leads (RFC 6455 §4.1 lets a server redirect the
/// upgrade; ``WebSocketOptions/maximumRedirects`` says how many are followed), decided from the
/// server's head and the URL asked for, without the network.
enum WebSocketRedirect {
    /// The statuses that redirect: a socket's `GET` stays a `GET` after any of them.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The socket URL the head's `Location` names, seen from `current`; `nil` when the head is no
    /// redirect. Throws for a location that is no URL, a scheme a socket cannot use, and a move
    /// from `wss` to `ws`, which would carry the socket without TLS.
    static func target(of head: WebSocketResponseHead, from current: URL) throws(WebSocketError) -> URL? {
        guard statuses.contains(head.status),
              let location = head.fields.first(where: { $0.name.caseInsensitiveCompare("Location") == .orderedSame })?
                .value.trimmingCharacters(in: .whitespaces), !location.isEmpty else { return nil }
        let base = CurlWebSocketConnection.httpURL(for: current)
        guard let resolved = URL(string: location, relativeTo: base)?.absoluteURL,
              var components = URLComponents(url: resolved, resolvingAgainstBaseURL: true), components.host?.isEmpty == false else {
            throw .invalidHandshake("the redirect's Location \"\(location)\" is no URL")
        }
        switch components.scheme?.lowercased() {
        case "http"?, "ws"?: components.scheme = "ws"
        case "https"?, "wss"?: components.scheme = "wss"
        default: throw .invalidHandshake("the handshake was redirected to \(components.scheme ?? "a URL without a scheme"), which cannot carry a WebSocket")
        }
        if isSecure(current), components.scheme == "ws" {
            throw .invalidHandshake("the handshake was redirected from wss to ws, which would carry the socket without TLS: refused")
        }
        components.fragment = nil
        guard let url = components.url else { throw .invalidHandshake("the redirect's Location \"\(location)\" is no URL") }
        return url
    }

    /// Whether `a` and `b` are one origin: security, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        isSecure(a) == isSecure(b) && a.host?.lowercased() == b.host?.lowercased() && port(of: a) == port(of: b)
    }

    private static func isSecure(_ url: URL) -> Bool { ["wss", "https"].contains(url.scheme?.lowercased() ?? "") }

    private static func port(of url: URL) -> Int { url.port ?? (isSecure(url) ? 443 : 80) }
}
