/// The directives of a message's `Cache-Control` fields (RFC 9111 §5.2) that a private cache acts
/// on, read leniently: unknown directives are ignored, names are case-insensitive, values may be
/// quoted, and a field may be split over several lines.
///
/// A lifetime that is no number, or one given twice with different values, counts as 0: RFC 9111
/// §4.2.1 lets a cache take such a response as stale, which is never wrong. Lifetimes past
/// 2^31 seconds are taken as 2^31 (§1.2.2).
struct CacheControl: Equatable, Sendable {
    var noStore = false
    /// `no-cache` (also with field names, which a private cache may read as the whole response).
    var noCache = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false
    var maxAge: Int?
    var sharedMaxAge: Int?
    /// A request's `max-stale`: how stale a response it accepts; `Int.max` for a bare `max-stale`.
    var maxStale: Int?
    var minFresh: Int?
    var onlyIfCached = false
    var staleIfError: Int?
    var staleWhileRevalidate: Int?

    /// The largest lifetime taken as it is (RFC 9111 §1.2.2).
    static let largestDelta = 2_147_483_648

    init() {}

    /// The directives of every `Cache-Control` field of `headers`.
    init(_ headers: HTTPHeaders) {
        self.init(fields: headers.values(for: "Cache-Control"))
    }

    init(fields: [String]) {
        for field in fields {
            for directive in Self.directives(in: field) { apply(directive.name, directive.value) }
        }
    }

    private mutating func apply(_ name: String, _ value: String?) {
        switch name {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "must-revalidate", "proxy-revalidate": mustRevalidate = true
        case "public": isPublic = true
        case "private": isPrivate = true
        case "only-if-cached": onlyIfCached = true
        case "max-age": maxAge = Self.merged(maxAge, Self.seconds(value))
        case "s-maxage": sharedMaxAge = Self.merged(sharedMaxAge, Self.seconds(value))
        case "max-stale": maxStale = value == nil ? Int.max : Self.merged(maxStale, Self.seconds(value))
        case "min-fresh": minFresh = Self.merged(minFresh, Self.seconds(value))
        case "stale-if-error": staleIfError = Self.merged(staleIfError, Self.seconds(value))
        case "stale-while-revalidate": staleWhileRevalidate = Self.merged(staleWhileRevalidate, Self.seconds(value))
        default: break
        }
    }

    /// A second value for a directive: the same one is harmless, another makes it 0.
    private static func merged(_ old: Int?, _ new: Int) -> Int {
        guard let old else { return new }
        return old == new ? old : 0
    }

    /// delta-seconds: digits only; anything else is 0 (stale), and the largest is 2^31.
    static func seconds(_ text: String?) -> Int {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return 0 }
        let digits = text.drop { $0 == "0" }
        if digits.count > 10 { return largestDelta }
        return min(Int(digits) ?? 0, largestDelta)
    }

    /// The `name[=value]` items of one field: split at commas outside quotes, names lowercased,
    /// quotes and backslash escapes taken off values.
    static func directives(in field: String) -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        var current = ""
        var quoted = false
        var escaped = false
        func finish() {
            let item = current.trimmingWhitespace
            current = ""
            guard !item.isEmpty else { return }
            guard let equals = item.firstIndex(of: "=") else {
                result.append((item.lowercased(), nil))
                return
            }
            let name = String(item[..<equals]).trimmingWhitespace.lowercased()
            var value = String(item[item.index(after: equals)...]).trimmingWhitespace
            if value.hasPrefix("\"") {
                value = String(value.dropFirst().filter { $0 != "\\" }.prefix { $0 != "\"" })
            }
            result.append((name, value))
        }
        for character in field {
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                finish()
                continue
            }
            current.append(character)
        }
        finish()
        return result
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
