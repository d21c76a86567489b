import Foundation

/// One response a ``HTTPCache`` keeps: the head and body as the request's body received them
/// (a content-coded body decoded, its head unchanged), when it was asked for and when it came,
/// and the request header values its `Vary` names, which a later request must match.
struct CachedResponse: Sendable {
    var statusCode: Int
    var httpVersion: HTTPVersion
    var url: URL
    /// As the engine read them (the curl engine's raw bytes are kept as they are: no string is
    /// made for a field until someone reads it).
    var headers: HTTPHeaders
    var body: Data
    /// When the request that brought it was sent, and when its head came (RFC 9111 §4.2.3).
    var requestTime: Date
    var responseTime: Date
    /// The lowercased names of `Vary` and the request's values for them (`nil`: not sent).
    var varying: [(name: String, value: String?)]

    /// Bytes it takes, roughly: what the cache's capacity counts.
    var cost: Int { body.count + headers.byteCount + 128 }

    /// Whether `request`'s header fields match the ones this response varies on (RFC 9111 §4.1):
    /// the same values, ignoring whitespace around them and around commas.
    func matchesVary(of request: [String: String]) -> Bool {
        varying.allSatisfy { field in
            Self.normalized(request[field.name]) == Self.normalized(field.value)
        }
    }

    /// A request's fields by lowercased name, as ``matchesVary(of:)`` reads them.
    static func varyKeys(_ fields: [(name: String, value: String)]) -> [String: String] {
        var keyed: [String: String] = [:]
        for (name, value) in fields { keyed[name.lowercased()] = value }
        return keyed
    }

    private static func normalized(_ value: String?) -> String? {
        value.map { $0.split(separator: ",").map { String($0).trimmingWhitespace }.joined(separator: ",") }
    }

    /// The response as a request receives it from the cache: an `Age` field for how old it is
    /// (RFC 9111 §5.1), and where it came from.
    func response(age: TimeInterval, status: CacheStatus) -> HTTPResponse {
        var fields = headers.fields.filter { !HTTPHeaders.namesMatch($0.name, "Age") }
        fields.append((name: "Age", value: String(Int(min(max(0, age), Double(CacheControl.largestDelta))))))
        var response = HTTPResponse(statusCode: statusCode, headers: HTTPHeaders(fields), url: url, body: Data(), httpVersion: httpVersion)
        response.cacheStatus = status
        return response
    }

    /// This response brought up to date by a `304 Not Modified` (RFC 9111 §4.3.4): the 304's
    /// fields replace the stored ones of the same name, but for the framing fields, which
    /// describe the stored body.
    func updated(by notModified: HTTPHeaders, requestTime: Date, responseTime: Date) -> CachedResponse {
        let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range",
                                 "connection", "keep-alive", "trailer", "upgrade"]
        var updated = self
        let replacing = notModified.fields.filter { !kept.contains($0.name.lowercased()) }
        let names = Set(replacing.map { $0.name.lowercased() })
        updated.headers = HTTPHeaders(headers.fields.filter { !names.contains($0.name.lowercased()) } + replacing)
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }
}
