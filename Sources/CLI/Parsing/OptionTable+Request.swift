import Foundation

/// The options that shape the request: method, URL, headers, body, credentials.
extension OptionTable {
    static let requestOptions: [OptionSpec] = [
        .value("url") { options, value, _ in options.urls.append(value) },
        .value("url-query") { options, value, _ in options.urlQueries.append(value) },
        .value("header", "H") { options, value, _ in options.headers += headerLines(value) },
        // The last -u, -r, -c wins, as in curl.
        .value("user", "u") { options, value, _ in options.user = value },
        .value("bearer") { options, value, spelling in try setOnce(&options.bearer, value, spelling) },
        // curl's name for the same line.
        .value("oauth2-bearer") { options, value, spelling in try setOnce(&options.bearer, value, spelling) },
        .value("data") { options, value, _ in options.dataArguments.append(DataArgument(kind: .data, value: value)) },
        .value("data-ascii") { options, value, _ in options.dataArguments.append(DataArgument(kind: .data, value: value)) },
        .value(nil, "d") { options, value, _ in options.dataArguments.append(DataArgument(kind: .data, value: value, isShortD: true)) },
        .value("data-raw") { options, value, _ in options.dataArguments.append(DataArgument(kind: .raw, value: value)) },
        .value("data-binary") { options, value, _ in options.dataArguments.append(DataArgument(kind: .binary, value: value)) },
        .value("data-urlencode") { options, value, _ in options.dataArguments.append(DataArgument(kind: .urlEncode, value: value)) },
        .flag("get", "G") { $0.dataInQuery = true },
        // Given again, its pieces are joined as they are (each TEXT or @FILE), as curl joins them.
        .value("json") { options, value, _ in options.jsonPieces.append(value) },
        .value("form", "F") { options, value, _ in options.form.append(value) },
        // One per URL, in order, as curl pairs them (RequestPlan).
        .value("upload-file", "T") { options, value, _ in options.uploadFiles.append(value) },
        .value("request", "X") { options, value, _ in options.method = value },   // the last wins, as in curl
        .flag("head", "I") { $0.headOnly = true },
        .value("user-agent", "A") { options, value, _ in options.userAgent = value },
        .value("referer", "e") { options, value, _ in options.referer = value },
        // A lone number is a start (`-r 4` asks for `4-`): curl appends the dash, with a warning.
        .value("range", "r") { options, value, _ in
            if let first = value.first, first.isASCII, first.isNumber, !value.contains("-"), Int64(value) != nil {
                options.range = value + "-"
                options.warnings.append("a range must include a dash (-); '\(value)' is taken as '\(value)-'")
            } else {
                options.range = value
            }
        },
        .value("continue-at", "C") { options, value, spelling in
            guard value == "-" || Int64(value).map({ $0 >= 0 }) == true else {
                throw Failure.usage("\(spelling) needs a byte offset or '-' (the size of the output file), not '\(value)'")
            }
            options.continueAt = value
        },
        .value("cookie", "b") { options, value, _ in options.cookies.append(value) },
        .value("cookie-jar", "c") { options, value, _ in options.cookieJar = value },
        .flag("junk-session-cookies", "j") { $0.junkSessionCookies = true },
        .flag("disallow-username-in-url") { $0.disallowsUsernameInURL = true },
        // Each --proto is read on top of the one before, as curl reads them.
        .value("proto") { options, value, _ in
            var list = options.protocols ?? ProtocolList()
            options.warnings += try list.apply(value)
            options.protocols = list
        },
        .value("etag-compare") { options, value, _ in options.etagCompare = value },
        .flag("compressed") { $0.compressed = true },
    ]
}

extension OptionTable {
    /// `-H`'s argument as header lines: the line itself, or for `-H @FILE` (`@-`: stdin) every
    /// line of the file, blank ones skipped, as curl reads them. A file that cannot be read adds
    /// nothing (curl only warns).
    static func headerLines(_ value: String) -> [String] {
        guard value.hasPrefix("@") else { return [value] }
        let path = String(value.dropFirst())
        let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data else { return [] }
        return String(decoding: data, as: UTF8.self)
            .split(whereSeparator: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
            .map(String.init)
    }
}
