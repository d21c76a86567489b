import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks header fields before anything is sent, so that a bad one is an error instead of an
/// attack or a silent change of meaning.
///
/// Measured with FoundationNetworking (libcurl 7.88.1): a header *name* with CR LF goes to the
/// wire as it is, so `"X\r\n\r\nGET /other HTTP/1.1"` ends the request head early and the rest
/// reaches the server as a second request (request smuggling); a *value* with CR, LF or NUL
/// given to `URLRequest.setValue` is silently dropped (a bearer token with a stray newline
/// sends the request unauthenticated), while one set through `allHTTPHeaderFields` reaches the
/// wire, CR LF and all.
///
/// Hence two places: values are checked where Courier still has them as given (a request's
/// `headers` and `authentication`, the Network's default headers), before `setValue` can drop
/// them; and every attempt's final `URLRequest` (after the defaults and the interceptors) is
/// checked as a whole in ``NetworkCore/finalize(_:)``, its method too (it goes into the request
/// line as it is, so it must be a token). Errors name the header, never a value.
enum HeaderValidation {
    /// Throws unless `name` is an RFC 9110 token and `value` has no control character but HTAB.
    static func check(name: String, value: String) throws(NetworkError) {
        try checkName(name)
        if let problem = controlCharacter(in: value) {
            throw .invalidRequest("the value of header \(quoted(name)) contains \(problem); header values must not contain CR, LF, NUL or other control characters")
        }
    }

    /// Checks every header field of a request about to be sent. The error names the first bad
    /// field in name order, so it does not depend on dictionary order; the fields are sorted only
    /// once one is found bad (sorting every request's fields was two allocations and a sort).
    static func check(_ request: WireRequest) throws(NetworkError) {
        let fields = request.fields
        guard fields.contains(where: { (try? check(name: $0.name, value: $0.value)) == nil }) else { return }
        for (name, value) in fields.sorted(by: { $0.name < $1.name }) {
            try check(name: name, value: value)
        }
    }

    /// Checks credentials before they become an `Authorization` header.
    ///
    /// Basic credentials are base64-encoded, so a control character would not break the header;
    /// it is refused all the same (RFC 7617 forbids them), as is a colon in the user name, which
    /// the server would take for the end of the name.
    static func check(_ authentication: Authentication) throws(NetworkError) {
        switch authentication {
        case let .basic(username, password):
            if let problem = controlCharacter(in: username) ?? controlCharacter(in: password) {
                throw .invalidRequest("the Basic credentials contain \(problem)")
            }
            if username.contains(":") {
                throw .invalidRequest("the Basic user name contains a colon, which would end the name early")
            }
        case let .bearer(token):
            if let problem = controlCharacter(in: token) { throw .invalidRequest("the bearer token contains \(problem)") }
        case let .raw(value):
            if let problem = controlCharacter(in: value) { throw .invalidRequest("the Authorization value contains \(problem)") }
        }
    }

    /// Throws unless `name` is a non-empty RFC 9110 token: ASCII letters, digits, the backtick
    /// and `!#$%&'*+-.^_|~`.
    static func checkName(_ name: String) throws(NetworkError) {
        guard !name.isEmpty else { throw .invalidRequest("a header name is empty") }
        guard isToken(name) else {
            throw .invalidRequest("header name \(quoted(name)) is not a valid HTTP token (letters, digits and \(tokenSymbolList) only)")
        }
    }

    /// Throws unless `method` is a non-empty RFC 9110 token, as a method must be (§9.1).
    ///
    /// Measured on both engines: a method is written into the request line as it is, so
    /// `"GET / HTTP/1.1\r\nX: y\r\n\r\nDELETE"` sends a request line, a header and a second
    /// request of its own choosing (request smuggling); a space alone shifts the target.
    static func checkMethod(_ method: String) throws(NetworkError) {
        guard !method.isEmpty else { throw .invalidRequest("the method is empty") }
        guard isToken(method) else {
            throw .invalidRequest("the method \(quoted(method)) is not a valid HTTP token (letters, digits and \(tokenSymbolList) only)")
        }
    }

    /// Whether `text` has RFC 9110 token characters only (may be empty: the callers check that
    /// first). Also the WebSocket handshake's check of its subprotocol names.
    /// Checked on the UTF-8 bytes, in place where the string keeps them: every token character
    /// is ASCII, and a byte of a non-ASCII character is 0x80 or above, never one of them.
    static func isToken(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy(isTokenByte) }
            ?? text.utf8.allSatisfy(isTokenByte)
    }

    /// The symbols RFC 9110 §5.6.2 allows in a token besides letters and digits.
    private static let tokenSymbolList = "!#$%&'*+-.^_`|~"

    /// ``tokenSymbolList`` (the one list of the symbols, which the error messages quote too) as
    /// one bit per ASCII byte, made once: searched in the string, it cost a scan for every `-`.
    private static let tokenSymbolBits: (low: UInt64, high: UInt64) = tokenSymbolList.utf8.reduce(into: (0, 0)) { bits, byte in
        if byte < 64 { bits.low |= 1 << byte } else { bits.high |= 1 << (byte - 64) }
    }

    /// An ASCII letter or digit, or one of ``tokenSymbolList``.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case 0..<64:
            return tokenSymbolBits.low & (1 << byte) != 0
        case 64..<128:
            return tokenSymbolBits.high & (1 << (byte - 64)) != 0
        default:
            return false
        }
    }

    /// The first control character in `text` other than HTAB, described for a message; `nil`
    /// if there is none. Bytes of 0x80 and above (UTF-8) are allowed, as RFC 9110's obs-text.
    /// Read as UTF-8 bytes: control characters are ASCII, and no byte of another character is one.
    private static func controlCharacter(in text: String) -> String? {
        // Looked for in the string's own bytes where it keeps them, through its UTF-8 view otherwise.
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in bytes.first(where: isControlByte) }
            ?? text.utf8.first(where: isControlByte)
        switch found {
        case nil: return nil
        case 0x0D: return "a carriage return (CR)"
        case 0x0A: return "a line feed (LF)"
        case 0x00: return "a NUL character"
        case let byte?: return "the control character U+\(String(byte, radix: 16, uppercase: true).leftPadded(to: 4))"
        }
    }

    /// A control character other than HTAB: C0 or DEL. Also what makes a `Set-Cookie` ignored
    /// (``SetCookie``).
    static func isControlByte(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// A header name for a message: quoted, control characters escaped, at most 60 characters.
    private static func quoted(_ name: String) -> String {
        var escaped = ""
        for scalar in name.unicodeScalars.prefix(60) {
            switch scalar {
            case "\r": escaped += "\\r"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return "\"" + escaped + (name.unicodeScalars.count > 60 ? "…" : "") + "\""
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
