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

extension StubResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `StubResponse(200, headers: [...], 12 bytes)`, secret header values redacted as in a real response.
    public var description: String {
        "StubResponse(\(statusCode), headers: \(RedactedFields.headers(headers)), \(body.count) bytes)"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// Status, headers (redacted) and the body's size.
    public var customMirror: Mirror {
        Mirror(self, children: ["statusCode": statusCode, "headers": RedactedFields.headers(headers),
                                "body": "\(body.count) bytes"], displayStyle: .struct)
    }
}
