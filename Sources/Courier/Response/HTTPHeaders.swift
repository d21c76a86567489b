/// Response header fields, looked up without regard to case (`headers["content-type"]`).
///
/// Names keep the spelling the server sent; the order of fields is kept too.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// Pairs, or the bytes the curl engine read (``RawHeaderFields``): lookups on those make no
    /// string but the value they return.
    private enum Storage: Sendable {
        case pairs([(name: String, value: String)])
        case raw(RawHeaderFields)
    }

    private let storage: Storage

    /// The fields as `(name, value)` pairs, in the order received. (Of a response the curl engine
    /// read, they are made when asked for: look one up by name where that is all you need.)
    public var fields: [(name: String, value: String)] {
        switch storage {
        case let .pairs(fields): return fields
        case let .raw(raw): return raw.fields
        }
    }

    /// Creates headers from `(name, value)` pairs.
    public init(_ fields: [(name: String, value: String)] = []) {
        storage = .pairs(fields)
    }

    /// Creates headers from a dictionary literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        storage = .pairs(elements.map { (name: $0.0, value: $0.1) })
    }

    /// Headers over the bytes the curl engine read.
    init(raw: RawHeaderFields) {
        storage = .raw(raw)
    }

    /// The value of the first field named `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        switch storage {
        case let .pairs(fields): return fields.first { Self.namesMatch($0.name, name) }?.value
        case let .raw(raw): return raw.firstValue(named: name)
        }
    }

    /// The first value of the fields named `name` (case-insensitive), and whether another field
    /// has that name too: no array made, for checks that run on every response.
    func firstValue(of name: String) -> (value: String?, repeated: Bool) {
        switch storage {
        case let .pairs(fields):
            var first: String?
            for field in fields where Self.namesMatch(field.name, name) {
                if first != nil { return (first, true) }
                first = field.value
            }
            return (first, false)
        case let .raw(raw):
            return raw.firstValue(named: name, noticingRepeats: true)
        }
    }

    /// Every value of the fields named `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        switch storage {
        case let .pairs(fields): return fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
        case let .raw(raw): return raw.values(named: name)
        }
    }

    /// Whether two field names are the same, ignoring ASCII case (names are RFC 9110 tokens, so
    /// ASCII is all there is). Byte by byte over the contiguous UTF-8 storage: Foundation's
    /// case-insensitive compare goes through NSString, and `utf8.elementsEqual(_:by:)` was
    /// measured as the largest single function in a stubbed request (about 6% of its instructions).
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var lhs = lhs, rhs = rhs   // withUTF8 needs a var; native strings are not copied
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in 0..<left.count where left[index] != right[index] {
                    guard folded(left[index]) == folded(right[index]) else { return false }
                }
                return true
            }
        }
    }

    private static func folded(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    /// About how many bytes the fields take (names, values and separators), without making a
    /// string of the curl engine's raw fields: what a cache counts against its capacity.
    var byteCount: Int {
        switch storage {
        case let .pairs(fields): return fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        case let .raw(raw): return raw.bytes.count + 4 * raw.spans.count
        }
    }

    /// Whether a field named `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// Iterates over the `(name, value)` pairs (made once for the iteration).
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Two header sets are equal when they hold the same fields in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the fields in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}
