/// What went wrong with the proxy a request went through, carried by ``NetworkError/proxy(_:_:)``.
///
/// Each case is about the proxy, never the request's own host: a proxy that cannot be found or
/// reached, or one that refused to open the tunnel an `https` request needs.
///
/// ```swift
/// catch NetworkError.proxy(.tunnelRefused(status: 407), _) {
///     print("the proxy wants credentials (Proxy-Authorization)")
/// }
/// ```
public enum ProxyFailure: Sendable, Hashable {
    /// The proxy's host name could not be resolved; carries the name as libcurl tried it.
    /// curl's exit code 5.
    case unresolvableHost(String)
    /// Nobody accepted a connection at the proxy's address; carries it as `host:port` (curl
    /// engine only: URLSession's error does not say whether it was the proxy). curl's exit code 7.
    case connectionRefused(String)
    /// The proxy answered the `CONNECT` that opens the tunnel for an `https` request with this
    /// status instead of `2xx`: `407` wants `Proxy-Authorization`, `403` forbids the destination,
    /// `502` could not reach it. Nothing reached the server. curl's exit code 56.
    case tunnelRefused(status: Int)
}

extension ProxyFailure {
    /// What failed, as the start of ``NetworkError``'s description.
    var summary: String {
        switch self {
        case let .unresolvableHost(host): return "The proxy \(host) could not be resolved"
        case let .connectionRefused(address): return "The proxy \(address) refused the connection"
        case let .tunnelRefused(status): return "The proxy refused to open a tunnel (HTTP \(status) to CONNECT)"
        }
    }

    /// Whether the same request may succeed later: a proxy that is not found or not listening
    /// may be back; a refused tunnel is the proxy's answer and stays so.
    var mayMendItself: Bool {
        if case .tunnelRefused = self { return false }
        return true
    }
}
