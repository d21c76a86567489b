import Foundation

/// Encodes `Encodable` values into URL query items and `application/x-www-form-urlencoded`
/// bodies: the query-string counterpart of `JSONEncoder`.
///
/// ```swift
/// struct Search: Encodable {
///     let query: String
///     let page: Int
///     let filter: Filter          // nested: filter[minPrice]=10
///     let tags: [String]          // arrays: tags[]=a&tags[]=b
///     let since: Date?            // nil: left out; a Date: ISO 8601
///     struct Filter: Encodable { let minPrice: Int; let inStock: Bool }
/// }
/// let search = Search(query: "1+1", page: 2, filter: .init(minPrice: 10, inStock: true), tags: ["a", "b"], since: nil)
/// let items = try URLQueryEncoder().encode(search)
/// // query=1+1, page=2, filter[minPrice]=10, filter[inStock]=true, tags[]=a, tags[]=b
/// let url = try URLBuilder(host: "api.example.com").addingPathComponent("search").addingQuery(search).build()
/// // https://api.example.com/search?query=1%2B1&page=2&filter%5BminPrice%5D=10&…
/// ```
///
/// The rules:
/// - The value must be keyed at the top: a struct, a class or a `[String: …]` dictionary.
///   Its properties become names, in the order the type encodes them (a dictionary's order
///   is its own, unspecified, order).
/// - Nested values get bracketed names: `filter[minPrice]=10`, `a[b][c]=1`.
/// - Arrays follow ``arrayEncodingStrategy``: `tags[]=a&tags[]=b` by default.
/// - `nil` is left out altogether (no `name=`), in objects and arrays alike; so are empty
///   arrays and objects, which have no items to give.
/// - `Date` follows ``dateEncodingStrategy``, `Bool` ``boolEncodingStrategy``; numbers are
///   written in full (`0.1`, `1e-05`); `URL` as its absolute string, `Data` as Base64,
///   `Decimal` as its description. Infinity and NaN cannot be encoded (`EncodingError`).
/// - Names follow ``keyEncodingStrategy``.
///
/// ``encode(_:)`` returns the items unencoded; ``URLBuilder/addingQuery(_:encoder:)``,
/// ``Request/addingQuery(_:encoder:)``, ``encodedQuery(_:)`` percent-encode them for a URL
/// (RFC 3986: everything but `A–Z a–z 0–9 - . _ ~` is escaped, so `+` is `%2B` and a space
/// `%20`), and ``RequestBody/form(_:encoder:)`` and ``encodedForm(_:)`` for a form body (space
/// as `+`, `+` as `%2B`, as the form encoding defines). Either way a server reads back exactly
/// the strings encoded.
public struct URLQueryEncoder: Sendable {
    /// How arrays are written.
    ///
    /// ```swift
    /// let encoder = URLQueryEncoder(arrayEncodingStrategy: .repeatedKeys)   // ids=1&ids=2
    /// ```
    public enum ArrayEncodingStrategy: Sendable, Hashable {
        /// `list[]=1&list[]=2`: what Rails, PHP and most frameworks read as an array. The default.
        case brackets
        /// `list=1&list=2`: the same name repeated, as many servers (and HTML forms) expect.
        case repeatedKeys
        /// `list[0]=1&list[1]=2`: an explicit position, which keeps arrays of objects
        /// unambiguous (`items[0][name]=a&items[0][size]=2`). A `nil` element keeps its position
        /// (its index is skipped).
        case indexed
    }

    /// How `Date` values are written.
    ///
    /// ```swift
    /// let encoder = URLQueryEncoder(dateEncodingStrategy: .millisecondsSince1970)   // since=1738324800250
    /// let custom = URLQueryEncoder(dateEncodingStrategy: .custom { date in String(Int(date.timeIntervalSince1970 / 86_400)) })
    /// ```
    public enum DateEncodingStrategy: Sendable {
        /// ISO 8601 in UTC, whole seconds: `2025-01-31T12:00:00Z`. The default.
        case iso8601
        /// Seconds since 1970: `1738324800`, with up to three decimals when the date has a
        /// fraction of a second (`1738324800.25`).
        case secondsSince1970
        /// Whole milliseconds since 1970: `1738324800250`.
        case millisecondsSince1970
        /// The text of a `DateFormatter` (set its locale and time zone).
        case formatted(DateFormatter)
        /// The text your closure returns; an error it throws fails the encoding.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Bool` values are written.
    ///
    /// ```swift
    /// let encoder = URLQueryEncoder(boolEncodingStrategy: .oneZero)   // inStock=1
    /// ```
    public enum BoolEncodingStrategy: Sendable, Hashable {
        /// `true` and `false`. The default.
        case trueFalse
        /// `1` and `0`.
        case oneZero
    }

    /// How property names (and dictionary keys) become query names.
    ///
    /// ```swift
    /// let encoder = URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)   // perPage=50 → per_page=50
    /// ```
    public enum KeyEncodingStrategy: Sendable {
        /// The names as the type spells them. The default.
        case useDefaultKeys
        /// camelCase to snake_case: `createdAt` → `created_at`, `userID` → `user_id`,
        /// `myURLValue` → `my_url_value`, `page2Size` → `page2_size`. A word starts at an
        /// upper-case letter after a lower-case letter or a digit, and at the last upper-case
        /// letter of a run followed by a lower-case one; everything is then lower-cased.
        /// Underscores already there are kept. Dictionary keys are converted too, as with
        /// `JSONEncoder`.
        case convertToSnakeCase
        /// The name your closure returns for each name.
        case custom(@Sendable (String) -> String)
    }

    /// How arrays are written. Default: ``ArrayEncodingStrategy/brackets``.
    ///
    /// ```swift
    /// var encoder = URLQueryEncoder()
    /// encoder.arrayEncodingStrategy = .indexed   // items[0][name]=a
    /// ```
    public var arrayEncodingStrategy: ArrayEncodingStrategy
    /// How dates are written. Default: ``DateEncodingStrategy/iso8601``.
    ///
    /// ```swift
    /// var encoder = URLQueryEncoder()
    /// encoder.dateEncodingStrategy = .secondsSince1970   // since=1738324800
    /// ```
    public var dateEncodingStrategy: DateEncodingStrategy
    /// How booleans are written. Default: ``BoolEncodingStrategy/trueFalse``.
    ///
    /// ```swift
    /// var encoder = URLQueryEncoder()
    /// encoder.boolEncodingStrategy = .oneZero   // archived=0
    /// ```
    public var boolEncodingStrategy: BoolEncodingStrategy
    /// How names are written. Default: ``KeyEncodingStrategy/useDefaultKeys``.
    ///
    /// ```swift
    /// var encoder = URLQueryEncoder()
    /// encoder.keyEncodingStrategy = .convertToSnakeCase   // createdAfter → created_after
    /// ```
    public var keyEncodingStrategy: KeyEncodingStrategy

    /// Creates an encoder; every strategy has the default named on its property.
    ///
    /// ```swift
    /// let encoder = URLQueryEncoder(arrayEncodingStrategy: .repeatedKeys,
    ///                               dateEncodingStrategy: .secondsSince1970,
    ///                               keyEncodingStrategy: .convertToSnakeCase)
    /// ```
    public init(
        arrayEncodingStrategy: ArrayEncodingStrategy = .brackets,
        dateEncodingStrategy: DateEncodingStrategy = .iso8601,
        boolEncodingStrategy: BoolEncodingStrategy = .trueFalse,
        keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    ) {
        self.arrayEncodingStrategy = arrayEncodingStrategy
        self.dateEncodingStrategy = dateEncodingStrategy
        self.boolEncodingStrategy = boolEncodingStrategy
        self.keyEncodingStrategy = keyEncodingStrategy
    }

    /// The query items of `value`, names and values unencoded, in encoding order.
    ///
    /// ```swift
    /// struct Page: Encodable { let page: Int; let perPage: Int; let sort: [String] }
    /// let items = try URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)
    ///     .encode(Page(page: 2, perPage: 50, sort: ["name", "-date"]))
    /// // [page=2, per_page=50, sort[]=name, sort[]=-date]
    /// ```
    ///
    /// - Throws: `EncodingError.invalidValue` when the value is not keyed at the top (a bare
    ///   number, string or array), holds a non-finite number, or when a date closure or the
    ///   value's own `encode(to:)` throws.
    public func encode(_ value: some Encodable) throws -> [URLQueryItem] {
        let sink = QueryItemSink(options: self)
        try QueryValueEncoder(name: nil, codingPath: [], sink: sink).encodeValue(value)
        if let failure = sink.failure { throw failure }
        return sink.items
    }

    /// `value` as a percent-encoded query string (RFC 3986), ready to follow `?` in a URL.
    ///
    /// ```swift
    /// struct Q: Encodable { let q: String; let range: [Int] }
    /// try URLQueryEncoder().encodedQuery(Q(q: "a b+c", range: [1, 5]))
    /// // "q=a%20b%2Bc&range%5B%5D=1&range%5B%5D=5"
    /// ```
    public func encodedQuery(_ value: some Encodable) throws -> String {
        URLBuilder.percentEncodedQuery(try encode(value).map { URLBuilder.QueryItem(name: $0.name, value: $0.value) })
    }

    /// `value` as an `application/x-www-form-urlencoded` body (space as `+`, `+` as `%2B`).
    ///
    /// ```swift
    /// struct Login: Encodable { let user: String; let password: String }
    /// try URLQueryEncoder().encodedForm(Login(user: "jo doe", password: "p+ss"))
    /// // "user=jo+doe&password=p%2Bss"
    /// ```
    public func encodedForm(_ value: some Encodable) throws -> String {
        FormEncoding.encode(try encode(value).map { ($0.name, $0.value ?? "") })
    }
}

extension URLQueryEncoder {
    /// The query name for a property or dictionary key.
    func encodedKey(_ key: String) -> String {
        switch keyEncodingStrategy {
        case .useDefaultKeys: return key
        case .convertToSnakeCase: return Self.snakeCased(key)
        case let .custom(transform): return transform(key)
        }
    }

    /// `camelCase` → `camel_case`; see ``KeyEncodingStrategy/convertToSnakeCase``.
    static func snakeCased(_ key: String) -> String {
        let characters = Array(key)
        var result = ""
        result.reserveCapacity(key.utf8.count + 4)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLowercase = index + 1 < characters.count && characters[index + 1].isLowercase
                let startsWord = previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase)
                if startsWord { result.append("_") }
            }
            result += character.lowercased()
        }
        return result
    }

    /// The text of a date under ``dateEncodingStrategy``.
    func string(for date: Date, codingPath: [any CodingKey]) throws -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        switch dateEncodingStrategy {
        case .secondsSince1970, .millisecondsSince1970:
            // Beyond ±2^53 ms a Double has no whole milliseconds left to write (and Int64 would trap).
            guard abs(milliseconds) < 9_007_199_254_740_992 else {
                throw EncodingError.invalidValue(date, .init(codingPath: codingPath, debugDescription: "The date \(date.timeIntervalSince1970) s since 1970 is out of range."))
            }
        default:
            break
        }
        switch dateEncodingStrategy {
        case .iso8601:
            return date.ISO8601Format()
        case .secondsSince1970:
            let whole = Int64(milliseconds / 1000)
            let fraction = Int64(abs(milliseconds.truncatingRemainder(dividingBy: 1000)))
            guard fraction != 0 else { return String(whole) }
            var decimals = String(fraction)
            decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
            while decimals.hasSuffix("0") { decimals.removeLast() }
            return (milliseconds < 0 && whole == 0 ? "-" : "") + String(whole) + "." + decimals
        case .millisecondsSince1970:
            return String(Int64(milliseconds))
        case let .formatted(formatter):
            return formatter.string(from: date)
        case let .custom(format):
            return try format(date)
        }
    }

    /// The text of a boolean under ``boolEncodingStrategy``.
    func string(for bool: Bool) -> String {
        switch boolEncodingStrategy {
        case .trueFalse: return bool ? "true" : "false"
        case .oneZero: return bool ? "1" : "0"
        }
    }
}
