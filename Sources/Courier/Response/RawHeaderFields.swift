/// A response head's fields as the curl engine read them: the names and values in one buffer of
/// bytes, and where each one starts and ends. Lookups (`headers["Content-Length"]`) compare bytes
/// and make a `String` only of the value they return; the `(name, value)` pairs are made only
/// when someone asks for them all (``HTTPHeaders/fields``, iteration, equality).
///
/// Why: a 1 KiB GET's head was about 9,000 instructions of parsing into Swift strings (each
/// validated as UTF-8), more than the core ever reads of it — it looks up a handful of fields.
/// See Docs/Performance.md.
final class RawHeaderFields: Sendable {
    /// One field: its name is `bytes[nameStart..<nameEnd]`, its value `bytes[nameEnd..<valueEnd]`
    /// (trimmed already, a folded continuation joined with one space).
    struct Span: Sendable {
        var nameStart: Int32
        var nameEnd: Int32
        var valueEnd: Int32
    }

    let bytes: [UInt8]
    let spans: [Span]

    init(bytes: [UInt8], spans: [Span]) {
        self.bytes = bytes
        self.spans = spans
    }

    /// The pairs, made now.
    var fields: [(name: String, value: String)] {
        bytes.withUnsafeBufferPointer { buffer in
            spans.map { span in
                (String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(span.nameStart)..<Int(span.nameEnd)]), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(span.nameEnd)..<Int(span.valueEnd)]), as: UTF8.self))
            }
        }
    }

    /// The values of the fields named `name` (ASCII case ignored), in order.
    func values(named name: String) -> [String] {
        var found: [String] = []
        forEachValue(named: name) { found.append($0); return true }
        return found
    }

    /// The value of the first field named `name` (ASCII case ignored), or `nil`.
    func firstValue(named name: String) -> String? {
        firstValue(named: name, noticingRepeats: false).value
    }

    /// The first value of the fields named `name`, and, where asked, whether there is another.
    func firstValue(named name: String, noticingRepeats: Bool) -> (value: String?, repeated: Bool) {
        var found: String?
        var repeated = false
        forEachValue(named: name) { value in
            if found != nil { repeated = true; return false }
            found = value
            return noticingRepeats
        }
        return (found, repeated)
    }

    /// Calls `body` with the value of each field named `name`, in order, while it returns `true`.
    private func forEachValue(named name: String, _ body: (String) -> Bool) {
        var name = name   // withUTF8 needs a var; a native string is not copied
        name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { buffer in
                for span in spans where Int(span.nameEnd - span.nameStart) == wanted.count {
                    let start = Int(span.nameStart)
                    var same = true
                    for index in 0..<wanted.count where Self.folded(buffer[start + index]) != Self.folded(wanted[index]) {
                        same = false
                        break
                    }
                    guard same else { continue }
                    let value = String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(span.nameEnd)..<Int(span.valueEnd)]), as: UTF8.self)
                    guard body(value) else { return }
                }
            }
        }
    }

    private static func folded(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
}

/// Collects a head's fields as ``RawHeaderFields`` while it is parsed, line by line.
struct RawHeaderBuilder {
    private(set) var bytes: [UInt8] = []
    private(set) var spans: [RawHeaderFields.Span] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity * 32)
        spans.reserveCapacity(capacity)
    }

    var isEmpty: Bool { spans.isEmpty }

    mutating func append(name: Slice<UnsafeRawBufferPointer>, value: Slice<UnsafeRawBufferPointer>) {
        let nameStart = Int32(bytes.count)
        Self.copy(name, into: &bytes)
        let nameEnd = Int32(bytes.count)
        Self.copy(value, into: &bytes)
        spans.append(RawHeaderFields.Span(nameStart: nameStart, nameEnd: nameEnd, valueEnd: Int32(bytes.count)))
    }

    /// An obsolete folded line: the last field's value goes on, after one space. (Its value is
    /// the last thing in the buffer, so it grows in place.)
    mutating func continueLast(with value: Slice<UnsafeRawBufferPointer>) {
        guard !spans.isEmpty else { return }
        bytes.append(0x20)
        Self.copy(value, into: &bytes)
        spans[spans.count - 1].valueEnd = Int32(bytes.count)
    }

    /// As one `memcpy`: appended as a slice, the bytes went over one at a time.
    private static func copy(_ slice: Slice<UnsafeRawBufferPointer>, into bytes: inout [UInt8]) {
        let raw = UnsafeRawBufferPointer(rebasing: slice)
        guard let base = raw.baseAddress, !raw.isEmpty else { return }
        bytes.append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }

    func build() -> RawHeaderFields {
        RawHeaderFields(bytes: bytes, spans: spans)
    }
}
