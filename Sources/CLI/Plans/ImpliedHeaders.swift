/// curl's options that each set one header: `-A` (`User-Agent`), `-e` (`Referer`), `-r`
/// (`Range: bytes=…`), `-z` (`If-Modified-Since`…), `--etag-compare` (`If-None-Match`).
///
/// They become header lines placed before the `-H` ones, so that a `-H` of the same name wins,
/// as it does in curl, and both kinds of plan read them like any other header.
enum ImpliedHeaders {
    static func lines(_ options: Options) throws(Failure) -> [String] {
        var lines: [String] = []
        if let agent = options.userAgent {
            try checkPrintable(agent, "-A")
            // `-A ''` sends no User-Agent at all, as in curl: `User-Agent:` removes it.
            lines.append(agent.isEmpty ? "User-Agent:" : "User-Agent: \(agent)")
        }
        if let referer = options.referer {
            try checkPrintable(referer, "-e")
            lines.append("Referer: \(referer)")
        }
        if let range = options.range {
            // `0-499`, `500-`, `-500`, `0-0,-1`: what curl passes on, and nothing that could
            // turn into another header.
            let allowed = Set("0123456789-,")
            guard !range.isEmpty, range.allSatisfy(allowed.contains), range.contains("-") else {
                throw .usage("-r needs a byte range such as 0-499, 500- or -500, not '\(range)'")
            }
            lines.append("Range: bytes=\(range)")
        }
        if let condition = options.timeCondition, let line = TimeCondition.line(condition) {
            lines.append(line)
        }
        if let file = options.etagCompare {
            // A file that cannot be read, with --etag-save there to make it: an empty ETag, as
            // curl sends it (the first run of a script that keeps its ETag in one file).
            let etag = options.etagSave != nil ? (try? ETagFile.read(file)) ?? "" : try ETagFile.read(file)
            lines.append("If-None-Match: \(etag.isEmpty ? "\"\"" : etag)")
        }
        return lines
    }

    /// A header value must not carry a line break (it would start another header) or other
    /// control characters. Also for `-b`'s cookie strings, which become the `Cookie` header.
    static func checkPrintable(_ value: String, _ spelling: String) throws(Failure) {
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
            throw .usage("\(spelling) must not contain line breaks or control characters")
        }
    }
}
