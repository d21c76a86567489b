import Courier

/// curl's URL globbing: `{a,b,c}` takes each of its words in turn, `[1-10]`, `[01-10]` (as
/// wide as the first number), `[a-z]` and `[0-100:5]` (a step) each value of their range; one
/// URL becomes one transfer per combination, the last pattern varying fastest, as in curl. `\{`,
/// `\}`, `\[`, `\]` are the characters themselves, and brackets around an IPv6 address are the
/// address's own. `-g` turns it all off. `#N` in `-o` names the value of the Nth pattern.
struct URLGlob {
    /// One expansion: the URL, and the value each pattern took (for `#N`).
    struct Expansion: Equatable {
        let url: String
        let values: [String]
    }

    private enum Piece {
        case text(String)
        case choices([String])
    }

    private let pieces: [Piece]

    /// Every URL `text` stands for, in curl's order.
    static func expand(_ text: String) throws(Failure) -> [Expansion] {
        try URLGlob(text).expansions()
    }

    private init(_ text: String) throws(Failure) {
        var pieces: [Piece] = []
        var literal = ""
        let characters = Array(text)
        var index = 0
        func fail(_ reason: String) -> Failure {
            // The URL quoted with its password hidden, as every message quotes one (Redaction).
            Failure(.invalidURL, "bad URL glob in '\(Redaction.standard.redact(urlString: text))' at position \(index + 1): "
                + "\(reason) (-g turns globbing off)")
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, "{}[]".contains(characters[index + 1]) {
                literal.append(characters[index + 1])
                index += 2
            } else if character == "{" {
                guard let close = characters[index...].firstIndex(of: "}") else { throw fail("unmatched brace") }
                let inside = characters[(index + 1)..<close]
                if inside.contains("{") || inside.contains("[") { throw fail("nested brace") }
                pieces.append(.text(literal))
                literal = ""
                pieces.append(.choices(String(inside).split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
                index = close + 1
            } else if character == "[" {
                guard let close = characters[index...].firstIndex(of: "]") else { throw fail("unmatched bracket") }
                let inside = String(characters[(index + 1)..<close])
                if Self.isIPv6Address(inside) {
                    literal += "[" + inside + "]"
                } else {
                    guard let values = Self.range(inside) else { throw fail("bad range '[\(inside)]'") }
                    pieces.append(.text(literal))
                    literal = ""
                    pieces.append(.choices(values))
                }
                index = close + 1
            } else if character == "}" || character == "]" {
                throw fail("unmatched close \(character == "}" ? "brace" : "bracket")")
            } else {
                literal.append(character)
                index += 1
            }
        }
        pieces.append(.text(literal))
        self.pieces = pieces
    }

    private func expansions() -> [Expansion] {
        var results = [Expansion(url: "", values: [])]
        for piece in pieces {
            switch piece {
            case let .text(text):
                results = results.map { Expansion(url: $0.url + text, values: $0.values) }
            case let .choices(choices):
                // The earlier patterns vary slowest.
                results = results.flatMap { partial in
                    choices.map { Expansion(url: partial.url + $0, values: partial.values + [$0]) }
                }
            }
        }
        return results
    }

    /// `::1`, `fe80::1%25eth0`, `::ffff:1.2.3.4`: hex digits, colons, dots and a zone.
    private static func isIPv6Address(_ text: String) -> Bool {
        text.contains(":") && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" }
    }

    /// The values of `a-z`, `1-10`, `001-100`, with an optional `:STEP`, or `nil`.
    private static func range(_ text: String) -> [String]? {
        var bounds = Substring(text)
        var step = 1
        if let colon = bounds.lastIndex(of: ":") {
            guard let value = Int(bounds[bounds.index(after: colon)...]), value > 0 else { return nil }
            step = value
            bounds = bounds[..<colon]
        }
        let parts = bounds.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let (low, high) = (parts[0], parts[1])
        if low.count == 1, high.count == 1, let first = low.first, let last = high.first, first.isLetter, last.isLetter,
           first.isLowercase == last.isLowercase, let from = first.asciiValue, let to = last.asciiValue, from <= to {
            return stride(from: from, through: to, by: step).map { String(UnicodeScalar($0)) }
        }
        guard low.allSatisfy(\.isNumber), high.allSatisfy(\.isNumber), let from = Int(low), let to = Int(high), from <= to,
              (to - from) / step < 100_000 else { return nil }
        // A leading zero pads every value to the first number's width, as curl does.
        let width = low.hasPrefix("0") ? low.count : 0
        return stride(from: from, through: to, by: step).map { value in
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
    }

    /// `-o`'s name for one expansion: `#N` replaced by the Nth pattern's value (from 1); a `#`
    /// not followed by the number of a pattern stays as it is.
    static func outputName(_ template: String, values: [String]) -> String {
        var result = ""
        var characters = Substring(template)
        while let hash = characters.firstIndex(of: "#") {
            result += characters[..<hash]
            let digits = characters[characters.index(after: hash)...].prefix(while: \.isNumber)
            if let number = Int(digits), number >= 1, number <= values.count {
                result += values[number - 1]
                characters = characters[digits.endIndex...]
            } else {
                result += "#"
                characters = characters[characters.index(after: hash)...]
            }
        }
        return result + characters
    }
}
