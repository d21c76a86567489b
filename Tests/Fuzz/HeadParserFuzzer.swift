import Foundation
@testable import Courier

/// libFuzzer's entry point: one input is the bytes of response heads, handed to a
/// ``ResponseHeadParser`` one line at a time as libcurl's header callback does (and once more
/// as a single "line", whatever it holds). No network: thousands of inputs a second.
///
/// Whatever the bytes, the parser must answer without trapping, and a final head it reports
/// must be one: a status from 200 to 999 after an `HTTP/` version of digits and dots. Built and run by scripts/fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseHead(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: bytes, count: count)

    var parser = ResponseHeadParser()
    var lineStart = 0
    var ended = false
    for index in input.indices where input[index] == 0x0A || index == input.count - 1 {
        let line = UnsafeRawBufferPointer(rebasing: input[lineStart...index])
        lineStart = index + 1
        guard !ended else { break }
        switch parser.consume(line) {
        case .pending:
            break
        case let .head(head):
            check(head)
            // Later lines are trailers: taken, never a second head.
            guard parser.hasHead, parser.consume(line) == .pending else { fatalError("fuzz: a head after the final head") }
        case .malformed:
            ended = true   // libcurl stops the transfer here
        }
    }

    var whole = ResponseHeadParser()
    if case let .head(head) = whole.consume(input) { check(head) }
    return 0
}

private func check(_ head: ResponseHeadParser.Head) {
    // Compared as bytes: as Strings, `HTTP/` followed by a combining mark has no `HTTP/` prefix.
    let version = Array(head.version.utf8)
    guard (200...999).contains(head.statusCode), version.starts(with: Array("HTTP/".utf8)), version.count > 5,
          version.dropFirst(5).allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E }) else {
        fatalError("fuzz: a final head with status \(head.statusCode), version \(head.version)")
    }
    let fields = head.fieldDictionary
    guard fields.count <= head.fields.count else { fatalError("fuzz: more joined fields than fields") }
}
