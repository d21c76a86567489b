import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// curl's cookie file, the Netscape format, so that `courier` and `curl` can share a jar.
///
/// One cookie per line, seven fields separated by tabs:
///
///     domain  include-subdomains  path  secure  expiry  name  value
///
/// The flags are `TRUE` or `FALSE`; the expiry is in seconds since 1970, `0` for a cookie that
/// ends with the session. A domain prefixed with `#HttpOnly_` marks an HttpOnly cookie; any
/// other line starting with `#`, and blank lines, are comments.
enum CookieFile {
    struct Entry: Equatable, Sendable {
        /// Without a leading dot; ``includesSubdomains`` says whether it covers subdomains.
        var domain: String
        var includesSubdomains: Bool
        var path: String
        var secure: Bool
        /// Seconds since 1970; `0` for a session cookie.
        var expires: Int64
        var name: String
        var value: String
        var httpOnly: Bool

        func isExpired(at now: Date) -> Bool {
            expires != 0 && expires <= Int64(now.timeIntervalSince1970)
        }
    }

    /// The first lines of every file, as curl writes them; readers (curl, Python's
    /// `MozillaCookieJar`) look for the first one.
    static let header = """
        # Netscape HTTP Cookie File
        # https://curl.se/docs/http-cookies.html
        # Written by courier: curl reads it with -b and writes it with -c.


        """

    /// The cookies of a file's text; lines that are not cookies are skipped, as curl does.
    static func parse(_ text: String) -> [Entry] {
        text.split(whereSeparator: \.isNewline).compactMap { line -> Entry? in
            var line = Substring(line)
            let httpOnly = line.hasPrefix("#HttpOnly_")
            if httpOnly { line = line.dropFirst("#HttpOnly_".count) } else if line.hasPrefix("#") { return nil }
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            // A cookie with an empty value may have lost its last tab.
            if fields.count == 6 { fields.append("") }
            guard fields.count == 7, !fields[0].isEmpty, let expires = Int64(fields[4]) else { return nil }
            let dotted = fields[0].hasPrefix(".")
            return Entry(domain: dotted ? String(fields[0].dropFirst()) : fields[0],
                         includesSubdomains: dotted || fields[1].uppercased() == "TRUE",
                         path: fields[2].isEmpty ? "/" : fields[2], secure: fields[3].uppercased() == "TRUE",
                         expires: expires, name: fields[5], value: fields[6], httpOnly: httpOnly)
        }
    }

    /// The file's text: the header, then one line per cookie.
    static func render(_ entries: [Entry]) -> String {
        header + entries.map { entry in
            // curl writes a leading dot for a cookie that covers subdomains.
            let domain = (entry.httpOnly ? "#HttpOnly_" : "") + (entry.includesSubdomains ? "." : "") + entry.domain
            return [domain, flag(entry.includesSubdomains), entry.path, flag(entry.secure), String(entry.expires),
                    entry.name, entry.value].joined(separator: "\t") + "\n"
        }.joined()
    }

    private static func flag(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
}

extension CookieFile.Entry {
    /// A cookie as Foundation's cookie storage keeps it: its domain carries a leading dot when
    /// it covers subdomains; its expiry counts `Max-Age` too (a `Max-Age` of 0 or less makes it
    /// expired at once, which is how a server deletes a cookie).
    init(_ cookie: HTTPCookie) {
        let dotted = cookie.domain.hasPrefix(".")
        // Rounded down to whole seconds, as curl writes them; never 0, which means "session".
        let expires = cookie.expiry.map { max(1, Int64($0.timeIntervalSince1970.rounded(.down))) } ?? 0
        self.init(domain: dotted ? String(cookie.domain.dropFirst()) : cookie.domain, includesSubdomains: dotted,
                  path: cookie.path, secure: cookie.isSecure, expires: expires, name: cookie.name,
                  value: cookie.value, httpOnly: cookie.isHTTPOnly)
    }

    /// The cookie to put into Foundation's storage, or `nil` if Foundation refuses it.
    var cookie: HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path,
            .domain: includesSubdomains ? "." + domain : domain,
        ]
        if secure { properties[.secure] = "TRUE" }
        if expires != 0 { properties[.expires] = Date(timeIntervalSince1970: TimeInterval(expires)) }
        if httpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }
}
