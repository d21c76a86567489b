import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkRequest {
    /// The request as a `curl` command line to paste into a POSIX shell: the method, URL,
    /// headers and body Courier sends, every argument quoted for the shell.
    ///
    /// ```swift
    /// print(CreatePost(title: "Hi").curlCommand(on: api))
    /// // curl 'https://api.example.com/v1/posts' -H 'Authorization: <redacted>' -H 'Content-Type: application/json' --compressed --data-binary '{"title":"Hi"}'
    /// ```
    ///
    /// - In-memory bodies (`.json`, `.data`, `.form`, `.text`…) are inline with `--data-binary`;
    ///   bytes that are not plain text (a NUL, control characters, invalid UTF-8), or text
    ///   starting with `@`, are piped in by `printf` instead (`printf '…' | curl … --data-binary @-`).
    ///   The body is encoded again for the command: a `JSONEncoder` without `.sortedKeys` may
    ///   order an object's keys differently from the request that was sent.
    /// - A `.file` body is `--data-binary @path`: curl reads the file when it runs.
    /// - An `.untypedFile` body is `--data-binary @path -H Content-Type:`, sent without a media type.
    /// - A `.multipart` form is one `-F` per part (`--form-string` for text fields, `@path` for
    ///   files, `type=` and `filename=` as the form says); curl picks its own boundary. One
    ///   in-memory part that is not plain text is piped in by `printf`; a form with more than
    ///   one such part, or with a name curl cannot express (containing `=`), is sent as its
    ///   encoded bytes, piped in the same way, with its own boundary.
    /// - `--compressed`, as Courier offers compressed responses and decodes them.
    /// - Unless `revealingCredentials`, the values of `Authorization`, `Proxy-Authorization` and
    ///   `Cookie` and a password in the URL are replaced by `<redacted>`.
    ///
    /// - Parameters:
    ///   - network: The network whose ``Network/defaults`` (base URL, headers, query items) and
    ///     ``Network/jsonEncoder`` complete the request, as when it runs there; without one, the
    ///     request as it builds itself (a relative URL stays relative). Interceptors are not run.
    ///   - revealingCredentials: Whether credentials appear as they are.
    /// - Returns: The command on one line; for a request that cannot be built, a shell comment
    ///   (`# …`) saying why.
    public func curlCommand(on network: Network? = nil, revealingCredentials: Bool = false) -> String {
        let built: Result<URLRequest, NetworkError>
        if let core = network?.core {
            built = core.prepare(core.withCoders(self)).map(\.urlRequest)
        } else {
            do {
                built = .success(try makeURLRequest())
            } catch {
                built = .failure(error as? NetworkError ?? .invalidURL(String(describing: error)))
            }
        }
        switch built {
        case let .success(urlRequest):
            return CurlCommand(urlRequest, body: body, redaction: revealingCredentials ? nil : .standard).text
        case let .failure(error):
            return "# cannot build the request: " + (error.errorDescription ?? "\(error)").replacingOccurrences(of: "\n", with: " ")
        }
    }
}

/// A request written as a `curl` command line for a POSIX shell (see
/// ``NetworkRequest/curlCommand(on:revealingCredentials:)``); also what ``LoggingObserver``
/// writes with ``LoggingObserver/logsCurlCommands``.
struct CurlCommand {
    /// curl's arguments, unquoted.
    private(set) var arguments: [String] = []
    /// Bytes `printf` pipes into curl's standard input (`@-`), if any.
    private(set) var input: Data?

    /// - Parameters:
    ///   - request: The request as built, headers and in-memory body included.
    ///   - body: The request's body, for those sent from a file (a `.file` path, a multipart
    ///     form), which the `URLRequest` does not hold; `nil` to use `request.httpBody` alone.
    ///   - redaction: What to hide (credential headers, a URL's password and secret query
    ///     parameters, as ``Redaction`` says); `nil` reveals everything.
    init(_ request: URLRequest, body: RequestBody?, redaction: Redaction?) {
        var bodyArguments: [String] = []
        var formContentType = false
        switch body {
        case let .file(url)?:
            bodyArguments = ["--data-binary", "@" + url.path]
        case let .untypedFile(url)?:
            // `Content-Type:` removes the form type curl would otherwise give --data-binary.
            bodyArguments = ["--data-binary", "@" + url.path, "-H", "Content-Type:"]
        case let .multipart(form)?:
            if let parts = formArguments(form) {
                bodyArguments = parts
                formContentType = true   // curl writes its own, with its own boundary
            } else if let bytes = try? form.encodedData() {
                bodyArguments = dataArguments(bytes)
            }
        default:
            if let bytes = request.httpBody { bodyArguments = dataArguments(bytes) }
        }

        let method = request.httpMethod ?? "GET"
        if method == "HEAD" {
            arguments.append("--head")
        } else if !(method == "GET" && bodyArguments.isEmpty) && !(method == "POST" && !bodyArguments.isEmpty) {
            arguments += ["-X", method]
        }
        let url = request.url.map { redaction?.redact($0) ?? $0.absoluteString } ?? ""
        // Brackets and braces are curl's URL globbing unless it is told not to.
        if url.contains(where: { "[]{}".contains($0) }) { arguments.insert("--globoff", at: 0) }
        arguments.append(url)

        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in fields {
            if formContentType, name.lowercased() == "content-type" { continue }
            let shown = redaction?.hidesHeader(name) == true ? Redaction.marker : value
            // `Name;` is curl's way of sending a header with an empty value.
            arguments += ["-H", shown.isEmpty ? "\(name);" : "\(name): \(shown)"]
        }
        arguments.append("--compressed")
        arguments += bodyArguments
    }

    /// The command line: `curl` and its arguments, each quoted where the shell needs it,
    /// preceded by `printf '…' |` when bytes go through standard input.
    var text: String {
        let command = (["curl"] + arguments).map(Self.quote).joined(separator: " ")
        guard let input else { return command }
        return "printf " + Self.quote(Self.printfFormat(input)) + " | " + command
    }

    // MARK: - Bodies

    /// `--data-binary` with `bytes` inline when they are plain text, else through standard input.
    private mutating func dataArguments(_ bytes: Data) -> [String] {
        if let text = Self.plainText(bytes), !text.hasPrefix("@") { return ["--data-binary", text] }
        input = bytes
        return ["--data-binary", "@-"]
    }

    /// One `-F` (or `--form-string`) per part, or `nil` when curl cannot express the form
    /// that way (see ``NetworkRequest/curlCommand(on:revealingCredentials:)``).
    private mutating func formArguments(_ form: MultipartForm) -> [String]? {
        var result: [String] = []
        var piped: Data?
        for part in form.parts {
            // curl ends a part's name at the first `=`.
            guard !part.name.contains("=") else { return nil }
            var parameters: [String] = []
            if let filename = part.filename { parameters.append("filename=" + Self.formWord(filename)) }
            if let type = part.mimeType {
                parameters.append(Self.isPlainMediaType(type) ? "type=" + type : "headers=" + Self.formWord("Content-Type: " + type))
            }
            let suffix = parameters.map { ";" + $0 }.joined()
            switch part.content {
            case let .text(value) where Self.plainText(Data(value.utf8)) != nil:
                result += ["--form-string", part.name + "=" + value]
            case let .text(value):
                guard piped == nil else { return nil }
                piped = Data(value.utf8)
                result += ["-F", part.name + "=<-" + suffix]
            case let .data(data):
                if let text = Self.plainText(data) {
                    result += ["-F", part.name + "=" + Self.formWord(text) + suffix]
                } else {
                    guard piped == nil else { return nil }
                    piped = data
                    // `@-` is a file part (it takes a filename); `<-` is a field.
                    result += ["-F", part.name + (part.filename == nil ? "=<-" : "=@-") + suffix]
                }
            case let .file(url):
                result += ["-F", part.name + "=@" + Self.formWord(url.path) + suffix]
            }
        }
        input = piped
        return result
    }

    /// `bytes` as text that can stand inline in a shell word and survive a paste: valid UTF-8
    /// with no control character but newline and tab.
    private static func plainText(_ bytes: Data) -> String? {
        guard let text = String(data: bytes, encoding: .utf8),
              !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F }) else {
            return nil
        }
        return text
    }

    /// A word of curl's `-F` syntax: double-quoted, `\` and `"` escaped.
    private static func formWord(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `type/subtype` with nothing curl's `type=` could misread (parameters go in `headers=`).
    private static func isPlainMediaType(_ type: String) -> Bool {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&^_.+-")
        let halves = type.split(separator: "/", omittingEmptySubsequences: false)
        return halves.count == 2 && halves.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy(allowed.contains) }
    }

    // MARK: - Shell

    /// Characters a shell takes literally in an unquoted word.
    private static let unquoted = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=@%+")

    /// `word` as one POSIX shell word: as it is when nothing in it is special, else in single
    /// quotes, each `'` written as `'\''` (close, escaped quote, reopen).
    static func quote(_ word: String) -> String {
        if !word.isEmpty, word.unicodeScalars.allSatisfy(unquoted.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A `printf` format that writes exactly `bytes`: printable ASCII as it is, everything else
    /// (and `\`, `%`, `'`, and a leading `-`, which `printf` would take for an option) as a
    /// three-digit octal escape, which every POSIX `printf` reads.
    private static func printfFormat(_ bytes: Data) -> String {
        var format = ""
        format.reserveCapacity(bytes.count)
        for byte in bytes {
            if (0x20...0x7E).contains(byte), byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "%"), byte != UInt8(ascii: "'"),
               !(format.isEmpty && byte == UInt8(ascii: "-")) {
                format.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let octal = String(byte, radix: 8)
                format += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return format
    }
}
