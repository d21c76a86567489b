import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the curl engine proposes for a redirect, before Courier's ``RedirectPolicy`` decides:
/// the same rewrite URLSession proposes, so that both engines give the policy the same input.
enum CurlRedirects {
    /// The request a redirect response proposes, or `nil` if `response` is not a redirect
    /// (no `Location`, or a status that does not redirect).
    static func proposedRequest(after response: HTTPResponse, to current: WireRequest,
                                keepingPOST postRedirects: LibcurlOptions.PostRedirects = []) -> WireRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
              let location = response.headers["Location"],
              let target = URL(string: encoded(location), relativeTo: current.url)?.absoluteURL else { return nil }
        var next = current
        next.url = target
        let method = current.method
        // 303 always becomes a GET (but HEAD stays HEAD); 301 and 302 turn a POST into a GET.
        // LibcurlOptions.postRedirects keeps a POST a POST after those it names, as libcurl does.
        let keptPOST: LibcurlOptions.PostRedirects = switch response.statusCode {
        case 301: .status301
        case 302: .status302
        case 303: .status303
        default: []
        }
        if method == "POST", !keptPOST.isEmpty, postRedirects.contains(keptPOST) { return next }
        if (response.statusCode == 303 && method != "HEAD") || ([301, 302].contains(response.statusCode) && method == "POST") {
            next.method = "GET"
            next.body = nil
            next.set(nil, for: "Content-Type")
            next.set(nil, for: "Content-Length")
        }
        return next
    }

    /// A `Location` as libcurl reads it (its urlencode_str): after the scheme and host, a space
    /// is `%20` before the query and `+` in it, and each byte past ASCII is `%xx` in lower-case
    /// hex; everything else stays as it came.
    static func encoded(_ location: String) -> String {
        let bytes = Array(location.utf8)
        guard bytes.contains(where: { $0 == 0x20 || $0 >= 0x80 }) else { return location }
        var start = 0
        if let schemeEnd = location.range(of: "://") {
            let afterScheme = location.utf8.distance(from: location.startIndex, to: schemeEnd.upperBound)
            start = bytes[afterScheme...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        }
        var out = Array(bytes[..<start])
        var inQuery = false
        for byte in bytes[start...] {
            if byte == UInt8(ascii: "?") { inQuery = true }
            if byte == 0x20 {
                out += inQuery ? [UInt8(ascii: "+")] : Array("%20".utf8)
            } else if byte >= 0x80 {
                out += Array(String(format: "%%%02x", byte).utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the body of a redirect being followed ends only when its connection closes
    /// (`Connection: close`, HTTP/1.0 without keep-alive, or neither a length nor chunking):
    /// libcurl then stops reading after the head and follows at once, as curl does. Waiting for
    /// a server that keeps such a connection open would wait for ever.
    static func bodyEndsWithConnection(_ head: ResponseHeadParser.Head, method: String?) -> Bool {
        func value(_ name: String) -> String? {
            head.fields.first { HTTPHeaders.namesMatch($0.name, name) }?.value.lowercased()
        }
        let connection = value("Connection") ?? ""
        if connection.contains("close") { return true }
        guard head.version.hasPrefix("HTTP/1") else { return false }
        if head.version == "HTTP/1.0", !connection.contains("keep-alive") { return true }
        let chunked = value("Transfer-Encoding")?.contains("chunked") ?? false
        return value("Content-Length") == nil && !chunked && method != "HEAD"
    }
}
