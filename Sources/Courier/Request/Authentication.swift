import Foundation

/// Credentials sent with a request in its `Authorization` header.
///
/// Courier writes the header itself, up front, rather than waiting for a server challenge:
/// that is one round trip fewer, and it avoids URLSession's challenge handling, which on Linux
/// can leave a task hanging on a `401` that carries `WWW-Authenticate`.
public enum Authentication: Sendable, Hashable {
    /// HTTP Basic: `Authorization: Basic base64(username:password)`.
    case basic(username: String, password: String)
    /// A bearer token: `Authorization: Bearer <token>`.
    case bearer(String)
    /// The header value exactly as given, e.g. `"Token abc"` or a signed scheme.
    case raw(String)

    /// The value of the `Authorization` header these credentials produce.
    public var headerValue: String {
        switch self {
        case let .basic(username, password):
            return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        case let .bearer(token):
            return "Bearer " + token
        case let .raw(value):
            return value
        }
    }
}
