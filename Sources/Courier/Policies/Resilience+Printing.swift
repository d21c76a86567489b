import Foundation

// How the values interceptors and observers see, and the network's defaults, print: URLs,
// header values and query items through ``Redaction/standard`` (see Response+Printing.swift
// for why all three of `description`, `debugDescription` and `customMirror`).

extension RequestContext: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `#12 attempt 2: GET https://ann:<redacted>@…`.
    public var description: String {
        "#\(id) attempt \(attempt): \(method) \(url.map(Redaction.standard.redact) ?? "(no URL)")"
    }

    /// `RequestContext(…)` around ``description``.
    public var debugDescription: String { "RequestContext(\(description))" }

    /// Its fields, the URL redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "attempt": attempt, "method": method,
                                "url": url.map(Redaction.standard.redact) as Any], displayStyle: .struct)
    }
}

extension NetworkDefaults: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Base URL, headers and query items, redacted.
    public var description: String {
        var parts: [String] = []
        if let baseURL { parts.append("baseURL: \(Redaction.standard.redact(baseURL))") }
        if !headers.isEmpty { parts.append("headers: \(RedactedFields.headers(headers))") }
        if !queryItems.isEmpty { parts.append("queryItems: \(redactedQueryItems)") }
        return "NetworkDefaults(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// Base URL, headers and query items, redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL.map(Redaction.standard.redact) as Any,
                                "headers": RedactedFields.headers(headers),
                                "queryItems": redactedQueryItems], displayStyle: .struct)
    }

    private var redactedQueryItems: [URLBuilder.QueryItem] {
        queryItems.map { URLBuilder.QueryItem(name: $0.name, value: $0.value) }
    }
}
