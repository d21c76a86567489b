import Foundation

/// The one rule for hiding credentials wherever Courier shows a request: log lines, error
/// descriptions, and the `courier` tool's messages and `-v` output.
///
/// ```swift
/// Redaction.standard.redact(URL(string: "https://ann:pw@example.com/a?access_token=t&page=2")!)
/// // "https://ann:<redacted>@example.com/a?access_token=<redacted>&page=2"
/// Redaction.standard.redact(headerValue: "Bearer t0ken", name: "authorization")   // "<redacted>"
/// ```
///
/// What is hidden, always replaced by ``marker``:
/// - the password of a URL's `user:password@` (the user name stays: it says *who*, not the secret);
/// - the values of the query (and fragment) parameters named in ``queryParameters``;
/// - the values of the headers named in ``headerNames``. Headers that carry a URL
///   (`Location`, `Content-Location`, `Referer`) are shown with the URL rule above.
///
/// Names are matched without regard to case. The text this produces is for people to read: it
/// is not meant to be parsed back into a URL.
public struct Redaction: Sendable, Hashable {
    /// What replaces a hidden value: `<redacted>`.
    public static let marker = "<redacted>"

    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`.
    public static let defaultHeaderNames: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    /// `access_token`, `token`, `signature`, `X-Amz-Signature`: bearer tokens and signed-URL signatures.
    public static let defaultQueryParameters: Set<String> = ["access_token", "token", "signature", "X-Amz-Signature"]

    /// The defaults: ``defaultHeaderNames`` and ``defaultQueryParameters``.
    public static let standard = Redaction()

    /// Header names whose values are hidden; compared without regard to case.
    public var headerNames: Set<String>

    /// Query parameter names whose values are hidden; compared without regard to case.
    public var queryParameters: Set<String>

    /// Creates a rule hiding the given header and query parameter values (and URL passwords, always).
    public init(headerNames: Set<String> = Redaction.defaultHeaderNames,
                queryParameters: Set<String> = Redaction.defaultQueryParameters) {
        self.headerNames = headerNames
        self.queryParameters = queryParameters
    }

    /// Whether the value of the header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        headerNames.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Whether the value of the query parameter `name` (percent-decoded) is hidden.
    public func hidesQueryParameter(_ name: String) -> Bool {
        let decoded = name.removingPercentEncoding ?? name
        return queryParameters.contains { $0.caseInsensitiveCompare(decoded) == .orderedSame }
    }

    /// The URL as text, with its password and hidden parameter values replaced by ``marker``.
    public func redact(_ url: URL) -> String {
        redact(urlString: url.absoluteString)
    }

    /// Like ``redact(_:)`` for URL text that may not parse, or may be relative (a `Location`
    /// value, an argument the user typed).
    public func redact(urlString text: String) -> String {
        // Fragment and query are cut off first, so that a `@` or `:` in them is not taken for
        // the authority's.
        var rest = Substring(text)
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var result = redactPassword(in: rest)
        if let query { result += "?" + redactParameters(in: query) }
        if let fragment { result += "#" + redactParameters(in: fragment) }
        return result
    }

    /// `value`, or ``marker`` when the header `name` is hidden; a URL-valued header
    /// (`Location`, `Content-Location`, `Referer`) goes through ``redact(urlString:)``.
    public func redact(headerValue value: String, name: String) -> String {
        if hidesHeader(name) { return Self.marker }
        if Self.urlValuedHeaders.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            return redact(urlString: value)
        }
        return value
    }

    private static let urlValuedHeaders = ["Location", "Content-Location", "Referer"]

    /// Free text (an error's description, libcurl's message) with every URL in it redacted: each
    /// run of characters around a `://`, up to a space, a quote or a brace, goes through
    /// ``redact(urlString:)``. For text Courier did not write and cannot parse; a URL without a
    /// scheme in such text is not recognised.
    func redact(text: String) -> String {
        guard text.contains("://") else { return text }
        let stops: Set<Character> = [" ", "\t", "\n", "\r", "\"", "'", "<", ">", "{", "}", "(", ")", "[", "]"]
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            // The URL starts after the last stop character before its `://`.
            let start = rest[..<separator.lowerBound].lastIndex(where: stops.contains).map(rest.index(after:)) ?? rest.startIndex
            let end = rest[separator.upperBound...].firstIndex(where: stops.contains) ?? rest.endIndex
            result += rest[..<start]
            result += redact(urlString: String(rest[start..<end]))
            rest = rest[end...]
        }
        return result + rest
    }

    /// `scheme://user:password@host…` (or `//user:password@host…`) with the password replaced.
    private func redactPassword(in text: Substring) -> String {
        let authorityStart: Substring.Index
        if let separator = text.range(of: "://") {
            authorityStart = separator.upperBound
        } else if text.hasPrefix("//") {
            authorityStart = text.index(text.startIndex, offsetBy: 2)
        } else {
            return String(text)
        }
        // In a URL the authority ends at the first `/`. Text that does not parse (a mistyped
        // argument) may have a raw `/` in its password: there the user information is taken to
        // run up to the last `@`, hiding too much rather than too little.
        let parses = URL(string: String(text)) != nil
        let authorityEnd = parses ? text[authorityStart...].firstIndex(of: "/") ?? text.endIndex : text.endIndex
        // The last `@` ends the user information: a password may itself contain a raw `@`.
        guard let at = text[authorityStart..<authorityEnd].lastIndex(of: "@"),
              let colon = text[authorityStart..<at].firstIndex(of: ":"),
              text.index(after: colon) < at else {
            return String(text)
        }
        return String(text[..<text.index(after: colon)]) + Self.marker + String(text[at...])
    }

    /// `a=1&token=x` with the values of hidden parameters replaced; everything else as it was.
    private func redactParameters(in text: Substring) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "="), hidesQueryParameter(String(pair[..<equals])) else {
                return String(pair)
            }
            return String(pair[...equals]) + Self.marker
        }.joined(separator: "&")
    }
}
