import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `Set-Cookie` field, read by RFC 6265 §5.2 and turned into a stored cookie by §5.3.
///
/// Courier reads the field itself rather than hand it to `HTTPCookie.cookies(withResponseHeaderFields:for:)`:
/// FoundationNetworking's parser gives a cookie's `Expires` to a `DateFormatter`, which traps on
/// some non-ASCII bytes (`Incorrect range CFRange`), so one header from any server could end the
/// process. Here the field is split as bytes (a `;` followed by a combining mark is still a
/// separator), the date is read by ``HTTPDate``, and the cookie is built from finished values
/// (`HTTPCookie(properties:)` parses nothing it is given as a `Date`).
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// The `Domain` attribute: lower-cased, without its leading dot; `nil` when absent or empty.
    var domain: String?
    /// The `Path` attribute, when it is an absolute path.
    var path: String?
    var expires: Date?
    /// The `Max-Age` attribute in seconds; zero or less expires the cookie at once.
    var maxAge: Int?
    var isSecure = false
    var isHTTPOnly = false

    /// Browsers keep no cookie whose name and value together are longer (RFC 6265 §6.1 asks for
    /// at least this much); longer ones are dropped, not truncated.
    static let maximumNameAndValueBytes = 4096
    /// An attribute value longer than this is ignored (RFC 6265bis §5.6).
    static let maximumAttributeBytes = 1024

    /// The cookie a `Set-Cookie` value describes, or `nil` for a value a user agent ignores: no
    /// `=`, an empty name, a control character in the name or value, or a name and value too long.
    static func parse(_ field: String) -> SetCookie? {
        let bytes = Array(field.utf8)
        let parts = bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = trimmed(pair[pair.startIndex..<equals])
        let value = trimmed(pair[(equals + 1)...])
        // RFC 6265bis §5.6: a cookie whose name or value holds a control character (HTAB aside) is ignored.
        guard !name.isEmpty, name.count + value.count <= maximumNameAndValueBytes,
              !(name + value).contains(where: HeaderValidation.isControlByte) else { return nil }
        var cookie = SetCookie(name: text(name), value: text(value))
        for attribute in parts.dropFirst() {
            cookie.apply(attribute)
        }
        return cookie
    }

    /// Reads one `attribute[=value]`; unknown and malformed attributes are ignored, as §5.2 says.
    private mutating func apply(_ attribute: ArraySlice<UInt8>) {
        let equals = attribute.firstIndex(of: UInt8(ascii: "="))
        let name = Self.text(Self.trimmed(attribute[attribute.startIndex..<(equals ?? attribute.endIndex)])).lowercased()
        let value = equals.map { Self.trimmed(attribute[($0 + 1)...]) } ?? []
        guard value.count <= Self.maximumAttributeBytes else { return }
        switch name {
        case "expires":
            if let date = HTTPDate.parseCookieDate(Substring(Self.text(value))) { expires = date }
        case "max-age":
            // A digit or `-` first, then digits only; anything else is ignored.
            guard let first = value.first, first == UInt8(ascii: "-") || Self.isDigit(first),
                  value.dropFirst().allSatisfy(Self.isDigit), value.contains(where: Self.isDigit) else { return }
            // Ten digits are more than any cookie lives; longer numbers saturate rather than overflow.
            let digits = value.filter(Self.isDigit)
            let magnitude = digits.count > 10 ? 9_999_999_999 : digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            maxAge = first == UInt8(ascii: "-") ? -magnitude : magnitude
        case "domain":
            let domain = value.drop { $0 == UInt8(ascii: ".") }.map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }
            self.domain = domain.isEmpty ? nil : Self.text(domain)
        case "path":
            path = value.first == UInt8(ascii: "/") ? Self.text(value) : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        default:
            break
        }
    }

    /// The cookie to store for a response from `url` (RFC 6265 §5.3), or `nil` when a user agent
    /// must ignore it: a `Domain` that `url`'s host is not within, or a single-label `Domain`
    /// (`com`) other than the host itself, which would reach every site under it.
    func storedCookie(for url: URL, now: Date) -> HTTPCookie? {
        guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
              !host.isEmpty else { return nil }
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: value, .originURL: url]
        if let domain {
            let isIPAddress = Self.isIPAddress(host)
            guard domain == host || (host.hasSuffix("." + domain) && !isIPAddress && domain.contains(".")) else { return nil }
            // A leading dot marks a domain cookie (sent to subdomains too), as `HTTPCookie` spells
            // it; an address has no subdomains.
            properties[.domain] = isIPAddress ? host : "." + domain
        } else {
            properties[.domain] = host
        }
        properties[.path] = path ?? Self.defaultPath(of: url)
        if let maxAge {
            properties[.expires] = maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(TimeInterval(maxAge))
        } else if let expires {
            properties[.expires] = expires
        } else {
            properties[.discard] = "TRUE"   // a session cookie
        }
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }

    /// RFC 6265 §5.1.4: the request path up to, not including, its last `/`; `/` when that leaves nothing.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The `Set-Cookie` values in `headers`, one per cookie. URLSession (and `HTTPURLResponse`)
    /// join repeated fields with `, `, which a cookie's `Expires` date also contains: a comma
    /// starts a new cookie only where `name=` follows it before any `;` or `,`.
    static func values(in headers: HTTPHeaders) -> [String] {
        headers.values(for: "Set-Cookie").flatMap(splitJoined)
    }

    static func splitJoined(_ value: String) -> [String] {
        let bytes = Array(value.utf8)
        guard bytes.contains(UInt8(ascii: ",")) else { return [value] }
        var cookies: [String] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: ",") && startsCookie(bytes[(index + 1)...]) {
            cookies.append(text(Array(bytes[start..<index])))
            start = index + 1
        }
        cookies.append(text(Array(bytes[start...])))
        return cookies.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }.filter { !$0.isEmpty }
    }

    /// Whether `rest` opens with optional spaces, then a name (no space, `;` or `,` in it), then `=`.
    private static func startsCookie(_ rest: ArraySlice<UInt8>) -> Bool {
        let name = rest.drop { $0 == 0x20 || $0 == 0x09 }
        guard let equals = name.firstIndex(of: UInt8(ascii: "=")), equals > name.startIndex else { return false }
        return !name[name.startIndex..<equals].contains { [0x20, 0x09, UInt8(ascii: ";"), UInt8(ascii: ",")].contains($0) }
    }

    // MARK: - Bytes

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return Array(bytes[first...last])
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
