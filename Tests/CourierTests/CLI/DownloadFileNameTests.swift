@testable import CourierCLI
import Foundation
import XCTest

/// The rule that turns a URL into a file name in the download folder, and the escaping of what
/// is printed: checked in-process, case by case.
final class DownloadFileNameTests: XCTestCase {
    private func name(_ url: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        guard let parsed = URL(string: url) else {
            XCTFail("bad test URL \(url)", file: file, line: line)
            return ""
        }
        return DownloadFileName.of(parsed)
    }

    func testOrdinaryNamesAreTheDecodedLastSegment() {
        XCTAssertEqual(name("http://h/a/b%20c.txt?x=1#top"), "b c.txt")
        XCTAssertEqual(name("http://h/caf%C3%A9.txt"), "café.txt")
        XCTAssertEqual(name("http://h/r%C3%A9sum%C3%A9"), "résumé")
        XCTAssertEqual(name("http://h/100%25"), "100%")
        XCTAssertEqual(name("http://h/a%zz"), "a%zz", "a malformed escape is kept as written")
        XCTAssertEqual(name("http://h/.hidden"), ".hidden")
        XCTAssertEqual(name("http://h/..."), "...")
    }

    func testSeparatorsDecodedFromTheURLNeverLeaveTheFolder() {
        XCTAssertEqual(name("http://h/f/..%2F..%2Fpwn"), ".._.._pwn")
        XCTAssertEqual(name("http://h/f/%2E%2E%2F%2E%2E%2Fpwn"), ".._.._pwn")
        XCTAssertEqual(name("http://h/f/%2e%2e%2fpwn"), ".._pwn")
        XCTAssertEqual(name("http://h/f/a%2Fb"), "a_b")
        XCTAssertEqual(name("http://h/f/%2F"), "_")
        XCTAssertEqual(name("http://h/f/%2Fetc%2Fpasswd"), "_etc_passwd")
    }

    func testFoldersAndDotSegmentsAreIndexHTML() {
        for url in ["http://h", "http://h/", "http://h/dir/", "http://h/a/..", "http://h/a/.", "http://h/a/%2E%2E",
                    "http://h/a/%2e", "http://h/a/.%2E", "http://h/?q=1"] {
            XCTAssertEqual(name(url), "index.html", url)
        }
    }

    func testControlCharactersBecomeUnderscores() {
        XCTAssertEqual(name("http://h/bad%0Aname"), "bad_name")
        XCTAssertEqual(name("http://h/x%1B%5B2Jy"), "x_[2Jy")
        XCTAssertEqual(name("http://h/nul%00.txt"), "nul_.txt")
        XCTAssertEqual(name("http://h/del%7F%0D%09"), "del___")
        XCTAssertEqual(name("http://h/c1%C2%85%C2%9B"), "c1__", "C1 controls (NEL, CSI) too")
        XCTAssertEqual(name("http://h/invoice%E2%80%AEfdp.exe"), "invoice_fdp.exe", "a right-to-left override cannot disguise it")
        XCTAssertEqual(name("http://h/%FF%FE.bin"), "\u{FFFD}\u{FFFD}.bin", "bytes that are not UTF-8 are replaced, not dropped")
    }

    func testLongNamesAreCutSoThatTheSidecarStillFits() {
        XCTAssertEqual(DownloadFileName.maximumBytes, 242)
        let limit = 255 - ".partial.json".utf8.count

        let exact = String(repeating: "a", count: limit)
        XCTAssertEqual(DownloadFileName.capped(exact), exact, "a name that fits is kept")

        let long = name("http://h/" + String(repeating: "n", count: 245) + ".bin")
        XCTAssertEqual(long, String(repeating: "n", count: limit - 4) + ".bin", "the extension is kept")

        // Two-byte characters: the cut falls between characters, never inside one.
        let accented = name("http://h/" + String(repeating: "%C3%A9", count: 200) + ".txt")
        XCTAssertEqual(accented, String(repeating: "é", count: 119) + ".txt")
        XCTAssertLessThanOrEqual(accented.utf8.count, limit)
        XCTAssertEqual(String(decoding: Data(accented.utf8), as: UTF8.self), accented)

        let emoji = DownloadFileName.capped(String(repeating: "😀", count: 100))
        XCTAssertEqual(emoji, String(repeating: "😀", count: 60))

        // A "extension" too long to be one is just more name.
        let dotted = DownloadFileName.capped("a." + String(repeating: "x", count: 300))
        XCTAssertEqual(dotted.utf8.count, limit)
        XCTAssertTrue(dotted.hasPrefix("a.xxx"))

        for url in ["http://h/" + String(repeating: "%E2%82%AC", count: 120), "http://h/" + String(repeating: "z", count: 1000)] {
            XCTAssertLessThanOrEqual((name(url) + ".partial.json").utf8.count, 255, url)
        }
    }

    func testTerminalTextEscapesControlCharactersOnly() {
        XCTAssertEqual(TerminalText.escaped("plain name.txt"), "plain name.txt")
        XCTAssertEqual(TerminalText.escaped("café ünïcode 😀"), "café ünïcode 😀")
        XCTAssertEqual(TerminalText.escaped("a\u{1B}[2Jb"), #"a\x1B[2Jb"#)
        XCTAssertEqual(TerminalText.escaped("line\nbreak\r\ttab"), #"line\nbreak\r\ttab"#)
        XCTAssertEqual(TerminalText.escaped("\u{0}\u{7}\u{7F}\u{85}\u{9B}"), #"\x00\x07\x7F\x85\x9B"#)
        XCTAssertEqual(TerminalText.escaped("a\u{202E}b\u{2066}"), #"a\u{202E}b\u{2066}"#)
        XCTAssertEqual(TerminalText.escaped("e\u{301}\u{200D}"), "e\u{301}\u{200D}", "combining marks and joiners are not controls")
    }
}
