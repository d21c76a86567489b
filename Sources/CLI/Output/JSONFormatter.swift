import Foundation

/// Re-indents JSON text without parsing it into values.
///
/// `JSONSerialization` would lose the server's key order (dictionaries are unordered) and
/// rewrite numbers (`1.10` becomes `1.1`, big integers become doubles); re-indenting the tokens
/// keeps both exactly as sent, so what the terminal shows is what the server said.
enum JSONFormatter {
    /// The document indented by two spaces per level, or `nil` if `data` is not valid JSON.
    static func prettyPrinted(_ data: Data) -> Data? {
        // Validate first: the re-indenter itself trusts its input.
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else { return nil }
        let bytes = [UInt8](data)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0

        func newline() {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }

        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                output.append(byte)
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\""):
                inString = true
                output.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // An empty container stays on one line: `{}`, `[]`.
                var next = index
                while next < bytes.count, isWhitespace(bytes[next]) { next += 1 }
                let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if next < bytes.count, bytes[next] == closing {
                    output.append(contentsOf: [byte, closing])
                    index = next + 1
                } else {
                    output.append(byte)
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newline()
            case UInt8(ascii: ":"):
                output.append(contentsOf: [byte, UInt8(ascii: " ")])
            default:
                output.append(byte)
            }
        }
        return Data(output)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }
}
