/// Text that came from outside — a file name, a URL, something a server sent — made safe to
/// print on stderr: control characters never reach the terminal, where they could move the
/// cursor, rewrite earlier lines, change the terminal's settings or forge a message.
enum TerminalText {
    /// `text` with every character ``isControl(_:)`` accepts shown as a visible escape: `\n`,
    /// `\r` and `\t` by name, any other as `\x1B` or `\u{202E}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += scalar.value <= 0xFF ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{" + hex + "}"
            }
        }
        return result
    }

    /// A control character (C0, DEL, C1: what terminals act on) or a bidirectional-text control
    /// (which makes `gpj.exe` display as `exe.jpg`).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
