import Foundation

// How responses print: the URL and the header values go through ``Redaction/standard`` (a
// `Set-Cookie`, a `Location` with a token), whichever way Swift prints them — `description`
// (`"\(value)"`, `print`), `debugDescription` (`String(reflecting:)`, `debugPrint`, the
// description of an enclosing value) and `customMirror` (`dump`, the debugger). Bodies are
// shown by size and first bytes: Courier does not look inside them for secrets.

extension HTTPHeaders: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The fields as `[Name: value, …]`, secret values replaced by `<redacted>`.
    public var description: String {
        "[" + redactedLines.joined(separator: ", ") + "]"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// One child per field, `Name: value`, redacted.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: redactedLines, displayStyle: .collection)
    }

    private var redactedLines: [String] {
        fields.map { "\($0.name): \(Redaction.standard.redact(headerValue: $0.value, name: $0.name))" }
    }
}

extension HTTPResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `HTTP 200 from https://…, 1,024-byte body`, the URL redacted.
    public var description: String {
        "HTTP \(statusCode) from \(url.map(Redaction.standard.redact) ?? "(no URL)"), \(body.count)-byte body"
    }

    /// Status, URL, headers (redacted) and the body's size and first bytes.
    public var debugDescription: String {
        "HTTPResponse(statusCode: \(statusCode), url: \(url.map(Redaction.standard.redact) ?? "nil"), headers: \(headers), "
            + "body: \(body.count) bytes\(body.isEmpty ? "" : " " + bodyPreview))"
    }

    /// Status, redacted URL, headers (which redact themselves) and the body's size.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "statusCode": statusCode,
            "url": url.map(Redaction.standard.redact) as Any,
            "headers": headers,
            "body": "\(body.count) bytes",
        ], displayStyle: .struct)
    }
}

extension Response: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The value, then the response head (its URL redacted).
    public var description: String {
        "\(value) (\(response))"
    }

    /// The value and the response head, as `String(reflecting:)` shows each.
    public var debugDescription: String {
        "Response(value: \(String(reflecting: value)), response: \(response.debugDescription))"
    }

    /// The value and the response (which redacts itself).
    public var customMirror: Mirror {
        Mirror(self, children: ["value": value, "response": response], displayStyle: .struct)
    }
}

extension ServerError: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `HTTP 422 from https://…: <the model>`, the URL redacted.
    public var description: String {
        "HTTP \(statusCode) from \(response.url.map(Redaction.standard.redact) ?? "the server"): \(model)"
    }

    /// The model and the response (redacted).
    public var debugDescription: String {
        "ServerError(model: \(String(reflecting: model)), response: \(response.debugDescription))"
    }

    /// The model and the response (which redacts itself).
    public var customMirror: Mirror {
        Mirror(self, children: ["model": model, "response": response], displayStyle: .struct)
    }
}
