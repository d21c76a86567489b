import Courier

/// `-J`: the file name a server suggests in `Content-Disposition`, made safe to save in the
/// current folder (or `--output-dir`) and nowhere else.
///
/// The rule, curl 7.88's: the first `filename=` parameter (`filename*=` is not read), quoted or
/// not; everything up to its last `/` or `\` is dropped, so `../../etc/x` is saved as `x`; the
/// name ends at a CR or LF. Beyond curl: a name that is empty, `.` or `..` counts as none (the
/// URL's name is used), and control characters (see ``TerminalText/isControl(_:)``) become `_`.
enum HeaderFileName {
    /// The name in `response`'s `Content-Disposition`, or `nil`.
    static func name(in response: HTTPResponse) -> String? {
        guard let value = response.headers["Content-Disposition"] else { return nil }
        return name(inDisposition: value)
    }

    static func name(inDisposition value: String) -> String? {
        var rest = Substring(value)
        while true {
            rest = rest.drop { !$0.isASCII || !$0.isLetter }
            guard !rest.isEmpty else { return nil }
            if rest.hasPrefix("filename=") {
                return cleaned(rest.dropFirst("filename=".count))
            }
            // Not this parameter: on to the next one.
            guard let semicolon = rest.firstIndex(of: ";") else { return nil }
            rest = rest[rest.index(after: semicolon)...]
        }
    }

    private static func cleaned(_ text: Substring) -> String? {
        var name: Substring
        if text.first == "\"" {
            name = text.dropFirst().prefix { $0 != "\"" }
        } else {
            name = text.prefix { $0 != ";" }
        }
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = name[name.index(after: slash)...] }
        name = name.prefix { $0 != "\r" && $0 != "\n" }
        var safe = String.UnicodeScalarView()
        for scalar in name.unicodeScalars { safe.append(TerminalText.isControl(scalar) ? "_" : scalar) }
        let result = String(safe)
        return result.isEmpty || result == "." || result == ".." ? nil : result
    }
}
