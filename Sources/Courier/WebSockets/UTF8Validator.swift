/// Checks UTF-8 a piece at a time, so that a text message split across frames (or a close
/// reason) is refused at the first byte that cannot begin or continue a valid sequence, not only
/// once the whole message has arrived (RFC 6455 §8.1: fail the connection on invalid text).
///
/// Well-formed means the Unicode standard's table 3-7: no overlong forms, no surrogates
/// (U+D800–DFFF), nothing above U+10FFFF.
struct UTF8Validator: Sendable {
    /// Continuation bytes the current sequence still needs.
    private var needed = 0
    /// The range the next continuation byte must fall in (narrower than 80–BF after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether every byte so far can be part of valid UTF-8. A `false` stays false: the caller
    /// fails the connection at once.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            if needed == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: needed = 1; lower = 0x80; upper = 0xBF
                case 0xE0: needed = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2; lower = 0x80; upper = 0xBF
                case 0xED: needed = 2; lower = 0x80; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: needed = 3; lower = 0x80; upper = 0xBF
                case 0xF4: needed = 3; lower = 0x80; upper = 0x8F
                default: return false
                }
            } else {
                guard byte >= lower, byte <= upper else { return false }
                needed -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    mutating func feed(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Whether the text so far ends at a character boundary (checked when the message is complete).
    var isComplete: Bool { needed == 0 }

    /// Whether `bytes` are, whole, valid UTF-8.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.feed(bytes) && validator.isComplete
    }
}
