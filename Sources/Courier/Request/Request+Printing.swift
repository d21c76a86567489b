import Foundation

// How requests and credentials print, whichever way Swift prints them (`description`,
// `debugDescription`, `customMirror`: see Response+Printing.swift): URLs, header values and
// query items through ``Redaction/standard``, credentials never. A body is shown by its kind
// and size, not its content.

extension Authentication: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `.basic(username: "ann", password: <redacted>)`, `.bearer(<redacted>)`, `.raw(<redacted>)`.
    public var description: String {
        switch self {
        case let .basic(username, _): return ".basic(username: \(String(reflecting: username)), password: \(Redaction.marker))"
        case .bearer: return ".bearer(\(Redaction.marker))"
        case .raw: return ".raw(\(Redaction.marker))"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The scheme and the user name; the secret as ``Redaction/marker``.
    public var customMirror: Mirror {
        switch self {
        case let .basic(username, _):
            return Mirror(self, children: ["username": username, "password": Redaction.marker], displayStyle: .enum)
        case .bearer:
            return Mirror(self, children: ["token": Redaction.marker], displayStyle: .enum)
        case .raw:
            return Mirror(self, children: ["value": Redaction.marker], displayStyle: .enum)
        }
    }
}

extension URLBuilder.QueryItem: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `name=value`, the value hidden when the name is a secret parameter (`access_token`, ...).
    public var description: String {
        name + (redactedValue.map { "=" + $0 } ?? "")
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The name and the (redacted) value.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": redactedValue as Any], displayStyle: .struct)
    }

    private var redactedValue: String? {
        guard let value else { return nil }
        return Redaction.standard.hidesQueryParameter(name) ? Redaction.marker : value
    }
}

extension URLBuilder: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL it builds, redacted (or its parts, when they do not form a URL).
    public var description: String {
        if let url = try? build() { return Redaction.standard.redact(url) }
        let query = queryItems.isEmpty ? "" : "?" + queryItems.map(\.description).joined(separator: "&")
        return "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")/\(pathComponents.joined(separator: "/"))\(query)"
    }

    /// `URLBuilder(<the URL, redacted>)`.
    public var debugDescription: String { "URLBuilder(\(description))" }

    /// Its parts, the query items redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["scheme": scheme, "host": host, "port": port as Any, "pathComponents": pathComponents,
                                "queryItems": queryItems], displayStyle: .struct)
    }
}

extension RequestLocation: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL, the string or the builder's URL, redacted.
    public var description: String {
        switch self {
        case let .url(url): return Redaction.standard.redact(url)
        case let .string(string): return Redaction.standard.redact(urlString: string)
        case let .builder(builder): return builder.description
        }
    }

    /// The case and the redacted URL: `.url(https://ann:<redacted>@…)`.
    public var debugDescription: String {
        switch self {
        case .url: return ".url(\(description))"
        case .string: return ".string(\(description))"
        case let .builder(builder): return ".builder(\(builder.debugDescription))"
        }
    }

    /// The redacted URL.
    public var customMirror: Mirror {
        switch self {
        case .url: return Mirror(self, children: ["url": description], displayStyle: .enum)
        case .string: return Mirror(self, children: ["string": description], displayStyle: .enum)
        case let .builder(builder): return Mirror(self, children: ["builder": builder], displayStyle: .enum)
        }
    }
}

extension Request: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `GET https://ann:<redacted>@example.com/a?access_token=<redacted>`: method and URL (with
    /// ``queryItems``), redacted.
    public var description: String {
        "\(method) \(redactedURL)"
    }

    /// Method, URL, headers and credentials (redacted), the body's kind and the deadline.
    public var debugDescription: String {
        var parts = ["\(method) \(redactedURL)"]
        if !headers.isEmpty { parts.append("headers: " + RedactedFields.headers(headers).description) }
        if let authentication { parts.append("authentication: \(authentication)") }
        if let body { parts.append("body: " + RedactedFields.summary(of: body)) }
        parts.append("timeout: \(timeout)")
        return "Request<\(Output.self)>(" + parts.joined(separator: ", ") + ")"
    }

    /// Method, location, query items, headers and credentials (redacted), the body's kind, the
    /// deadline and what is accepted. The output transform is not shown.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "method": method,
            "location": location,
            "queryItems": queryItems.map { URLBuilder.QueryItem(name: $0.name, value: $0.value) },
            "headers": RedactedFields.headers(headers),
            "body": body.map(RedactedFields.summary(of:)) as Any,
            "authentication": authentication as Any,
            "timeout": timeout,
            "acceptedStatusCodes": acceptedStatusCodes.sorted(),
            "acceptedContentTypes": acceptedContentTypes as Any,
        ], displayStyle: .struct)
    }

    private var redactedURL: String {
        guard !queryItems.isEmpty else { return location.description }
        let query = queryItems.map { URLBuilder.QueryItem(name: $0.name, value: $0.value).description }.joined(separator: "&")
        let base = location.description
        return base + (base.contains("?") ? "&" : "?") + query
    }
}

extension RequestWithResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The base request's description, and that it keeps the response.
    public var description: String { "\(base) (with its response)" }

    /// The base request's debug description, and that it keeps the response.
    public var debugDescription: String { "RequestWithResponse(\(String(reflecting: base)))" }

    /// The base request.
    public var customMirror: Mirror {
        Mirror(self, children: ["base": base], displayStyle: .struct)
    }
}

/// Header dictionaries and bodies as the printing conformances show them.
enum RedactedFields {
    /// `headers` sorted by name, their values redacted, as response headers print.
    static func headers(_ headers: [String: String]) -> HTTPHeaders {
        HTTPHeaders(headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
    }

    /// What kind of body it is and, where known without encoding it, its size.
    static func summary(of body: RequestBody) -> String {
        switch body {
        case let .data(data, contentType): return "\(data.count) bytes of \(contentType)"
        case .json, .encodedJSON: return "JSON"
        case let .form(fields): return "form, \(fields.count) field\(fields.count == 1 ? "" : "s")"
        case .encodedForm: return "form"
        case let .text(text): return "\(text.utf8.count) bytes of text"
        case let .file(url): return "the file \(url.path)"
        case let .untypedFile(url): return "the file \(url.path), with no Content-Type"
        case .multipart: return "multipart form"
        }
    }
}
