import Foundation

/// One HTTP request as the test server received it.
package struct ServerRequest: Sendable {
    package let method: String
    /// The request target's path, without the query, exactly as sent (not percent-decoded).
    package let path: String
    /// The raw query string without the leading "?", or nil when the target had no "?".
    package let query: String?
    /// "HTTP/1.1" or "HTTP/1.0", as sent; needed to decide the keep-alive default.
    package let version: String
    /// Header fields as received, in order, duplicates kept.
    package let headers: [(name: String, value: String)]
    /// The body: de-chunked for `Transfer-Encoding: chunked`, else `Content-Length` bytes, else empty.
    package let body: Data
    /// For routes registered with `TestServer.spoolBodies(of:into:)`: the file the body was
    /// streamed to (then `body` is empty), so a huge upload does not sit in the test's memory.
    package var bodyFile: URL? = nil

    /// Value of the first header named `name`, compared case-insensitively (header names are).
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// All values of the headers named `name`, in order.
    package func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The query parsed into a dictionary, percent-decoded. The first occurrence of a key wins
    /// (like `header(_:)`); a key without "=" maps to "". "+" stays a literal "+", matching how
    /// URLComponents/URLQueryItem encode queries (they do not turn spaces into "+").
    package var queryItems: [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var items: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawKey = String(parts[0])
            let rawValue = parts.count > 1 ? String(parts[1]) : ""
            let key = rawKey.removingPercentEncoding ?? rawKey
            if items[key] == nil {
                items[key] = rawValue.removingPercentEncoding ?? rawValue
            }
        }
        return items
    }

    /// True when the connection must close after this request: `Connection: close`, or
    /// HTTP/1.0 without `Connection: keep-alive` (1.0 defaults to close).
    package var wantsClose: Bool {
        let tokens = headerValues("Connection")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if tokens.contains("close") { return true }
        if version == "HTTP/1.0" { return !tokens.contains("keep-alive") }
        return false
    }

    package var isHead: Bool { method == "HEAD" }
}
