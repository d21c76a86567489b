import Courier
import Foundation

/// Reads the URL arguments the way curl does: a missing scheme means `http://`; a scheme other
/// than http and https is curl's "unsupported protocol" (exit 1).
enum URLInput {
    /// Messages quote the argument with its password hidden (see ``Redaction``).
    static func parse(_ text: String) throws(Failure) -> URL {
        let shown = Redaction.standard.redact(urlString: text)
        let withScheme = withSlashes(text)
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased() else {
            throw Failure(.invalidURL, "malformed URL '\(shown)'")
        }
        guard scheme == "http" || scheme == "https" else {
            throw Failure(.failure, "unsupported URL scheme '\(scheme)' in '\(shown)' (only http and https)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw Failure(.invalidURL, "no host in URL '\(shown)'")
        }
        return url
    }

    /// The text with a scheme and its two slashes: a scheme (a letter, then letters, digits, `+`,
    /// `-`, `.`, then `:/`) takes one to three slashes, as libcurl's URL parser takes them
    /// (`http:/host/` is `http://host/`); no scheme is `http://`, as curl guesses it.
    static func withSlashes(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter,
              text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return "http://" + text
        }
        let rest = text[text.index(after: colon)...]
        let slashes = rest.prefix { $0 == "/" }.count
        guard slashes > 0 else { return "http://" + text }   // `host:port/…`, `user:password@host`
        // More than three is libcurl's "bad slashes": left as typed, it has no host (exit 3).
        guard slashes <= 3 else { return text }
        return text[..<colon] + "://" + rest.dropFirst(slashes)
    }

    /// `url` with `query` (already encoded) after any query it has, joined with `&`: `-G`'s data,
    /// `--url-query`'s pieces. `option` names the option for messages.
    static func appendingQuery(_ query: String, to url: URL, for option: String) throws(Failure) -> URL {
        guard !query.isEmpty else { return url }
        // libcurl writes the percent-encodings of a query it is handed in lower case (curl
        // 7.88's tool appends -G's and --url-query's pieces so): `%5b`, not `%5B`.
        let query = lowercasingPercentEncodings(query)
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw Failure(.invalidURL, "cannot add the \(option) data to '\(Redaction.standard.redact(url))'")
        }
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
        guard let withQuery = components.url else {
            throw Failure(.invalidURL, "cannot add the \(option) data to '\(Redaction.standard.redact(url))'")
        }
        return withQuery
    }

    /// `-T FILE URL`: a URL whose path is empty or ends with `/` names a folder, and the upload
    /// goes to the file's name in it, as curl does (`-T a.txt http://h/up/` puts `/up/a.txt`).
    static func naming(_ url: URL, after file: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              components.percentEncodedPath.isEmpty || components.percentEncodedPath.hasSuffix("/") else { return url }
        // As libcurl encodes a path it is handed: every byte but the unreserved ones and `/`,
        // in lower-case hex (`58te%5b%5dst.txt`).
        let encoded = file.utf8.map { byte in
            FormData.isUnreserved(byte) || byte == UInt8(ascii: "/") ? String(UnicodeScalar(byte)) : String(format: "%%%02x", byte)
        }.joined()
        components.percentEncodedPath = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + encoded
        return components.url ?? url
    }

    /// `text` with each `%XX` written in lower-case hex, as libcurl writes a URL part it is handed.
    static func lowercasingPercentEncodings(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) {
                for offset in 1...2 where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(bytes[index + offset]) {
                    bytes[index + offset] += 0x20
                }
                index += 3
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
