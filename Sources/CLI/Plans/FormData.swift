import Foundation

/// The `application/x-www-form-urlencoded` text of `-d`, `--data`, `--data-binary`,
/// `--data-raw` and `--data-urlencode`, joined with `&` in the order given, as curl joins them;
/// it becomes the body, or with `-G` the URL's query.
///
/// A file that cannot be read (`-d @missing`) sends nothing in its place, as curl's "this makes
/// an empty POST"; `warn` is told.
enum FormData {
    static func encoded(_ arguments: [DataArgument], standardInput: () -> Data, warn: (String) -> Void = { _ in }) -> Data {
        var joined = Data()
        for (index, argument) in arguments.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: "&")) }
            switch argument.kind {
            case .data:
                // curl strips carriage returns and newlines from a file (or stdin) given with
                // `-d @`; `--data-binary` keeps them.
                let content = RequestBodyInput.content(of: argument.value, standardInput: standardInput, warn: warn)
                joined.append(argument.value.hasPrefix("@") ? content.filter { $0 != 0x0D && $0 != 0x0A } : content)
            case .binary:
                joined.append(RequestBodyInput.content(of: argument.value, standardInput: standardInput, warn: warn))
            case .raw:
                joined.append(Data(argument.value.utf8))
            case .urlEncode:
                joined.append(Data(urlEncoded(argument.value, standardInput: standardInput, warn: warn).utf8))
            }
        }
        return joined
    }

    /// curl's five forms: `content`, `=content`, `name=content` encode the content; `@file` and
    /// `name@file` encode the file's bytes. Whichever of `=` and `@` comes first decides, so a
    /// value may contain the other (`q=a@b`). The name is sent as typed.
    static func urlEncoded(_ argument: String, standardInput: () -> Data, warn: (String) -> Void = { _ in }) -> String {
        guard let separator = argument.firstIndex(where: { $0 == "=" || $0 == "@" }) else {
            return percentEncoded(Data(argument.utf8))
        }
        let name = String(argument[..<separator])
        let rest = String(argument[argument.index(after: separator)...])
        guard argument[separator] == "@" else { return (name.isEmpty ? "" : name + "=") + percentEncoded(Data(rest.utf8)) }
        // A file that cannot be read makes the whole piece empty, name included, as in curl.
        guard let content = RequestBodyInput.readableContent(of: "@" + rest, standardInput: standardInput, warn: warn) else { return "" }
        return (name.isEmpty ? "" : name + "=") + percentEncoded(content)
    }

    /// Every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XX`, and a space as `+`,
    /// as curl 7.88 encodes `--data-urlencode` and `--url-query`.
    static func percentEncoded(_ bytes: Data) -> String {
        var text = ""
        text.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte == UInt8(ascii: " ") {
                text.append("+")
            } else if isUnreserved(byte) {
                text.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }

    /// Form text made fit for a URL's query (`-G`): bytes a query may hold stay, `%XX` escapes
    /// stay, anything else (a space in `-d 'q=a b'`, a non-ASCII byte) becomes `%XX`.
    static func queryText(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var text = ""
        for (index, byte) in bytes.enumerated() {
            let isEscape = byte == UInt8(ascii: "%") && index + 2 < bytes.count
                && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2])
            if isEscape || isUnreserved(byte) || queryDelimiters.contains(byte) {
                text.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }

    /// RFC 3986's sub-delimiters and the other characters a query may hold unescaped.
    private static let queryDelimiters = Set("!$&'()*+,;=:@/?".utf8)

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
