import Foundation

/// What interceptors and observers learn about one attempt of a request.
public struct RequestContext: Sendable, Hashable {
    /// Identifies the request (the same for all its attempts) within this process.
    public let id: UInt64
    /// Which attempt this is, from 1.
    public let attempt: Int
    /// The HTTP method.
    public let method: HTTPMethod
    /// The URL of the attempt (after defaults and interceptors), when known.
    public let url: URL?

    /// Creates a context (for tests of interceptors and observers).
    public init(id: UInt64, attempt: Int, method: HTTPMethod, url: URL?) {
        self.id = id
        self.attempt = attempt
        self.method = method
        self.url = url
    }
}
