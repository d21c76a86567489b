import Foundation

/// curl's config files: `-K FILE`, `-K -` (stdin), and the `.curlrc` read before the command
/// line, as curl 7.88 reads it.
///
/// The syntax, as curl's `parseconfig`: one option per line, leading whitespace ignored; `#`
/// starts a comment line. The option is spelled with its dashes (`-s`, `--silent`) or, for a
/// long option, without them (`silent`); without dashes, `=` or `:` may also separate it from
/// its value (`url = "…"`, `user-agent: x`), with dashes only whitespace does. A value in double
/// quotes may hold spaces and the escapes `\"`, `\\`, `\t`, `\n`, `\r`, `\v`; an unquoted value
/// ends at the first whitespace. `url` adds a URL, as `--url` does.
///
/// Problems in a config file are warnings, as in curl: an unknown option, or a value where the
/// option takes none, is reported and skipped, and the rest of the file still counts.
enum ConfigFile {
    /// One option line.
    struct Item: Equatable {
        /// As written: `-s`, `--silent` or `silent`.
        let option: String
        /// The value, unquoted; `nil` when the line has none.
        let value: String?
        let line: Int
    }

    /// The option lines of a config file's text.
    static func items(of text: String) -> [Item] {
        var items: [Item] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            line = line.drop { $0 == " " || $0 == "\t" }
            guard let first = line.first, first != "#" else { continue }
            let dashed = first == "-"
            let isSeparator: (Character) -> Bool = { $0 == " " || $0 == "\t" || (!dashed && ($0 == "=" || $0 == ":")) }
            let option = line.prefix { !isSeparator($0) }
            var rest = line.dropFirst(option.count).drop(while: isSeparator)
            var value: String?
            if rest.first == "\"" {
                rest = rest.dropFirst()
                value = unquoted(&rest)
            } else {
                let word = rest.prefix { $0 != " " && $0 != "\t" }
                value = word.isEmpty ? nil : String(word)
            }
            items.append(Item(option: String(option), value: value, line: index + 1))
        }
        return items
    }

    /// A quoted value up to its closing quote (or the end of the line), escapes resolved.
    private static func unquoted(_ text: inout Substring) -> String {
        var value = ""
        while let character = text.popFirst() {
            switch character {
            case "\"":
                return value
            case "\\":
                guard let escaped = text.popFirst() else { return value }
                switch escaped {
                case "t": value.append("\t")
                case "n": value.append("\n")
                case "r": value.append("\r")
                case "v": value.append("\u{0B}")
                default: value.append(escaped)
                }
            default:
                value.append(character)
            }
        }
        return value
    }

    /// The `.curlrc` curl 7.88 reads when `-q` (`--disable`) is not the first argument: the first
    /// of `$CURL_HOME/.curlrc`, `$XDG_CONFIG_HOME/.curlrc` and `$HOME/.curlrc` that exists.
    static func defaultFile(environment: [String: String]) -> URL? {
        for variable in ["CURL_HOME", "XDG_CONFIG_HOME", "HOME"] {
            guard let folder = environment[variable], !folder.isEmpty else { continue }
            let file = URL(fileURLWithPath: folder).appendingPathComponent(".curlrc")
            if FileManager.default.isReadableFile(atPath: file.path) { return file }
        }
        return nil
    }

    /// Whether the command line skips the `.curlrc`: `-q` or `--disable` first, as in curl.
    static func isDisabled(by arguments: [String]) -> Bool {
        arguments.first == "-q" || arguments.first == "--disable"
    }
}
