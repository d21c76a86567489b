import Foundation

/// A canned answer for a stub ``Network`` (see ``Network/init(stub:callbackQueue:maximumConcurrentRequests:)``).
public struct StubResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response header fields.
    public var headers: [String: String]
    /// The response body.
    public var body: Data

    /// Creates a canned answer.
    public init(statusCode: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}
