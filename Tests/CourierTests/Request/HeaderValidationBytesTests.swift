@testable import Courier
import Foundation
import XCTest

/// ``HeaderValidation`` reads names and values as UTF-8 bytes: the answers must be the ones a
/// check of each character gives, for every kind of character, and its messages must still name
/// a control character by its code point.
final class HeaderValidationBytesTests: XCTestCase {
    private func message(name: String, value: String) -> String? {
        do {
            try HeaderValidation.check(name: name, value: value)
            return nil
        } catch {
            guard case let .invalidRequest(message) = error else { return "unexpected \(error)" }
            return message
        }
    }

    func testEveryASCIICharacterIsATokenCharacterExactlyWhenRFC9110SaysSo() {
        let symbols = Set("!#$%&'*+-.^_`|~")
        for code in 0...0x7F {
            let character = Character(Unicode.Scalar(UInt8(code)))
            let isToken = character.isASCII && (character.isLetter || character.isNumber || symbols.contains(character))
            let refused = message(name: "X\(character)Y", value: "v") != nil
            XCTAssertEqual(refused, !isToken, "U+\(String(code, radix: 16)) in a name")
        }
    }

    func testNonASCIINamesAreRefusedAndNonASCIIValuesAccepted() {
        for name in ["Ünicode", "X-é", "X-\u{300}", "X-😀", "X-\u{80}"] {
            XCTAssertNotNil(message(name: name, value: "v"), name)
        }
        for value in ["café", "\u{80}", "😀 and \u{85}", "a\tb", ""] {
            XCTAssertNil(message(name: "X-Value", value: value), value)
        }
    }

    func testEachControlCharacterInAValueIsNamed() {
        XCTAssertEqual(message(name: "X-A", value: "a\rb")?.contains("a carriage return (CR)"), true)
        XCTAssertEqual(message(name: "X-A", value: "a\nb")?.contains("a line feed (LF)"), true)
        XCTAssertEqual(message(name: "X-A", value: "a\0b")?.contains("a NUL character"), true)
        XCTAssertEqual(message(name: "X-A", value: "a\u{1}b")?.contains("U+0001"), true)
        XCTAssertEqual(message(name: "X-A", value: "é\u{1F}")?.contains("U+001F"), true)
        XCTAssertEqual(message(name: "X-A", value: "a\u{7F}")?.contains("U+007F"), true)
    }
}
