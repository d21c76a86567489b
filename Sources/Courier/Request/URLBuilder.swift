import Foundation

/// Builds URLs from typed parts, encoding each part correctly.
///
/// ```swift
/// let url = try URLBuilder(host: "api.example.com")
///     .addingPathComponents(["v1", "weather"])
///     .addingQueryItem(name: "lat", value: 48.123123012, digits: 5)   // lat=48.12312
///     .addingQueryItem(name: "units", value: "metric")
///     .build()
/// ```
///
/// Path components are percent-encoded one by one (a `/` inside a component stays part of it);
/// query values are form-safe (`+` and `&` are encoded, so servers never read them as separators).
public struct URLBuilder: Sendable, Hashable {
    /// The scheme, `https` by default.
    public var scheme: String
    /// The host name or address.
    public var host: String
    /// An explicit port, or `nil` for the scheme's default. Any `Int` may be set; one outside
    /// `0...65535` makes ``build()`` throw ``NetworkError/invalidURL(_:)``.
    public var port: Int?
    /// The path components, unencoded.
    public var pathComponents: [String]
    /// The query items, unencoded, in order. A `nil` value gives a bare `name`.
    public var queryItems: [QueryItem]

    /// One `name=value` pair of a query.
    public struct QueryItem: Sendable, Hashable {
        /// The unencoded name.
        public var name: String
        /// The unencoded value, or `nil` for a bare name.
        public var value: String?

        /// Creates a query item.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// Starts a URL for `host`.
    public init(host: String, scheme: String = "https", port: Int? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathComponents = []
        self.queryItems = []
    }

    /// Adds one path component.
    public func addingPathComponent(_ component: String) -> URLBuilder {
        var copy = self
        copy.pathComponents.append(component)
        return copy
    }

    /// Adds several path components, in order.
    public func addingPathComponents(_ components: [String]) -> URLBuilder {
        var copy = self
        copy.pathComponents += components
        return copy
    }

    /// Adds a query item from any ``QueryStringConvertible`` value; a `nil` value adds nothing.
    public func addingQueryItem(name: String, value: (some QueryStringConvertible)?) -> URLBuilder {
        guard let value else { return self }
        var copy = self
        copy.queryItems.append(QueryItem(name: name, value: value.queryStringValue))
        return copy
    }

    /// Adds a number with exactly `digits` fractional digits, always with a `.` separator
    /// whatever the locale (e.g. `48.12312` for `digits: 5`). Any `Int` is accepted: below 0 is
    /// taken as 0, above 1074 as 1074 (the most a `Double` has: beyond, only zeros would follow).
    /// Infinities and NaN are written `inf`, `-inf` and `nan`.
    public func addingQueryItem(name: String, value: Double, digits: Int) -> URLBuilder {
        var copy = self
        // Clamped: `%.<huge>f` would ask the formatter for gigabytes of zeros.
        let digits = min(max(0, digits), Self.maximumFractionDigits)
        copy.queryItems.append(QueryItem(name: name, value: String(format: "%.\(digits)f", value)))
        return copy
    }

    /// The fractional digits of the least positive `Double` (`0x1p-1074`), written out exactly.
    static let maximumFractionDigits = 1074

    /// Adds the query items of an `Encodable` value, encoded by `encoder` (see
    /// ``URLQueryEncoder`` for the rules: nested values as `a[b]=1`, arrays as
    /// `list[]=1&list[]=2` by default, `nil` left out).
    ///
    /// ```swift
    /// struct Filter: Encodable { let status: [String]; let createdAfter: Date?; let perPage: Int }
    /// let url = try URLBuilder(host: "api.example.com")
    ///     .addingPathComponent("issues")
    ///     .addingQuery(Filter(status: ["open", "blocked"], createdAfter: nil, perPage: 50),
    ///                  encoder: URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase))
    ///     .build()
    /// // https://api.example.com/issues?status%5B%5D=open&status%5B%5D=blocked&per_page=50
    /// ```
    ///
    /// - Throws: ``NetworkError/encodingFailed(_:)`` with the encoder's error.
    public func addingQuery(_ value: some Encodable, encoder: URLQueryEncoder = URLQueryEncoder()) throws -> URLBuilder {
        let items: [URLQueryItem]
        do {
            items = try encoder.encode(value)
        } catch {
            throw NetworkError.encodingFailed(error)
        }
        var copy = self
        copy.queryItems += items.map { QueryItem(name: $0.name, value: $0.value) }
        return copy
    }

    /// Adds a bare query flag (`?name`).
    public func addingQueryFlag(_ name: String) -> URLBuilder {
        var copy = self
        copy.queryItems.append(QueryItem(name: name, value: nil))
        return copy
    }

    /// Assembles the URL.
    ///
    /// - Throws: ``NetworkError/invalidURL(_:)`` when the host is empty or the parts do not form a URL.
    public func build() throws -> URL {
        guard !host.isEmpty else { throw NetworkError.invalidURL("URLBuilder: the host is empty") }
        guard !scheme.isEmpty else { throw NetworkError.invalidURL("URLBuilder: the scheme is empty") }
        // Checked here: Foundation's URLComponents traps on a negative port.
        if let port, !(0...65_535).contains(port) { throw NetworkError.invalidURL("URLBuilder: the port \(port) is not in 0...65535") }
        var components = URLComponents()
        components.scheme = scheme
        components.host = host
        components.port = port
        components.percentEncodedPath = pathComponents.map { "/" + Self.escape($0) }.joined()
        if !queryItems.isEmpty {
            components.percentEncodedQuery = Self.percentEncodedQuery(queryItems)
        }
        guard let url = components.url else {
            throw NetworkError.invalidURL("URLBuilder: \(scheme)://\(host) with path \(pathComponents) does not form a URL")
        }
        return url
    }

    /// `name=value&…` with every name and value percent-encoded (see ``escape(_:)``).
    static func percentEncodedQuery(_ items: [QueryItem]) -> String {
        items.map { item in
            escape(item.name) + (item.value.map { "=" + escape($0) } ?? "")
        }.joined(separator: "&")
    }

    /// RFC 3986 unreserved characters stay; everything else is percent-encoded.
    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    private static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: unreserved) ?? string
    }
}

/// A value that can stand in a URL query.
public protocol QueryStringConvertible {
    /// The unencoded text put in the query.
    var queryStringValue: String { get }
}

extension String: QueryStringConvertible {
    /// The string itself.
    public var queryStringValue: String { self }
}

extension Substring: QueryStringConvertible {
    /// The substring as a string.
    public var queryStringValue: String { String(self) }
}

extension Int: QueryStringConvertible {
    /// The decimal digits.
    public var queryStringValue: String { String(self) }
}

extension Int64: QueryStringConvertible {
    /// The decimal digits.
    public var queryStringValue: String { String(self) }
}

extension UInt: QueryStringConvertible {
    /// The decimal digits.
    public var queryStringValue: String { String(self) }
}

extension Double: QueryStringConvertible {
    /// The shortest text that reads back as the same number, e.g. `0.1`.
    public var queryStringValue: String { String(self) }
}

extension Bool: QueryStringConvertible {
    /// `true` or `false`.
    public var queryStringValue: String { self ? "true" : "false" }
}

extension UUID: QueryStringConvertible {
    /// The canonical upper-case form.
    public var queryStringValue: String { uuidString }
}
