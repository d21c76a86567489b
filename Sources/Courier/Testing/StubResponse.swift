import Foundation

/// A canned HTTP answer for a stub ``Network``: what ``StubReply/response(_:)`` sends, and what
/// the closure given to `Network(stub:)` returns.
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
