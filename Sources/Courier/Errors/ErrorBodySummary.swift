import Foundation

/// What an error description shows of a response's body: the server's own words when it wrote
/// text (`{"error": "no such user"}`, an HTML title, a plain sentence), otherwise only the body's
/// type and size. Bounded, on one line, and redacted: URLs go through the redaction's rule, and
/// the values of JSON or form fields named like its hidden query parameters (`"access_token":
/// "…"`, `token=…`) are hidden, so that printing an error never prints a secret the server echoed.
enum ErrorBodySummary {
    /// Characters of a text body shown at most.
    static var textLimit: Int { 200 }

    /// `. The body (26 bytes, application/json): {"error": "no such user"}`, or `. The body: 5000
    /// bytes of image/png.`, to follow a sentence without its full stop; empty for an empty body.
    static func sentence(for response: HTTPResponse, redacting redaction: Redaction) -> String {
        let body = response.body
        guard !body.isEmpty else { return "" }
        let type = response.headers["Content-Type"].map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces)
        guard isText(type: type, body: body), let text = String(data: body.prefix(textLimit * 4), encoding: .utf8)
                ?? String(data: body.prefix(textLimit * 4 - 3), encoding: .utf8) else {
            return ". The body: \(body.count) bytes" + (type.map { " of \($0)" } ?? "") + "."
        }
        var line = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let cut = line.count > textLimit || body.count > textLimit * 4
        if line.count > textLimit { line = String(line.prefix(textLimit)) }
        line = hidingFields(in: redaction.redact(text: line), named: redaction.queryParameters)
        return ". The body (\(body.count) bytes\(type.map { ", \($0)" } ?? "")): \(line)\(cut ? "…" : "")"
    }

    /// Text a person can read: a textual media type, or no type and bytes that are UTF-8 without
    /// control characters other than white space.
    private static func isText(type: String?, body: Data) -> Bool {
        if let type = type?.lowercased() {
            return type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml")
                || ["application/json", "application/xml", "application/javascript", "application/x-www-form-urlencoded"].contains(type)
        }
        return !body.prefix(512).contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
    }

    /// `"name": "value"` and `name=value` with the value replaced by ``Redaction/marker`` for each
    /// hidden name, compared without case.
    private static func hidingFields(in text: String, named names: Set<String>) -> String {
        var result = text
        for name in names {
            let escaped = NSRegularExpression.escapedPattern(for: name)
            for pattern in ["(\"\(escaped)\"\\s*:\\s*\")[^\"]*(\")", "(\\b\(escaped)=)[^&\\s\"]*()"] {
                guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
                result = expression.stringByReplacingMatches(in: result, range: NSRange(result.startIndex..., in: result),
                                                             withTemplate: "$1\(Redaction.marker)$2")
            }
        }
        return result
    }
}
