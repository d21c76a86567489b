import Foundation

/// JSON text written by hand, so that keys come out in the order given (`JSONSerialization`
/// sorts or shuffles them) and strings are escaped exactly as RFC 8259 asks, no more.
/// `package`: the `courier` tool's `--json-output` and `%{json}` and the benchmarks' reports use
/// it; it is no part of the library's API.
package enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    package static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `{"key":value,…}` from members whose values are JSON text already.
    package static func object(_ members: [(key: String, value: String)]) -> String {
        "{" + members.map { string($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }

    /// A string literal, or `null`.
    package static func optionalString(_ text: String?) -> String {
        text.map(string) ?? "null"
    }
}
