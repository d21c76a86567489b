/// One header field of a request, as HPNetwork 2.x declared them
/// (`headerFields: [NetworkRequestHeaderField]`).
///
/// Courier's own member is ``NetworkRequest/headers`` (a dictionary); a request that declares
/// ``HPNetworkRequestMembers/headerFields`` instead has them sent through the default of
/// ``NetworkRequest/headers``, a later field replacing an earlier one of the same name (names
/// compared without case), as HPNetwork's `URLRequest.setValue` did.
///
/// ```swift
/// var headerFields: [NetworkRequestHeaderField]? {
///     [.acceptJSON, NetworkRequestHeaderField(name: "X-Client", value: "ios/4.2")]
/// }
/// ```
public struct NetworkRequestHeaderField: Sendable, Hashable {
    /// The field name, e.g. `Accept`.
    public let name: String
    /// The field value, e.g. `application/json`.
    public let value: String

    /// Creates a field. It is checked when the request is built: a name that is not an HTTP
    /// token, or a value with a control character, fails the request with
    /// ``NetworkError/invalidRequest(_:)`` before anything is sent.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Content-Type: application/json`.
    public static let contentTypeJSON = NetworkRequestHeaderField(name: "Content-Type", value: "application/json")
    /// `Accept: application/json`.
    public static let acceptJSON = NetworkRequestHeaderField(name: "Accept", value: "application/json")
    /// `Accept-Charset: utf-8`.
    public static let acceptCharsetUTF8 = NetworkRequestHeaderField(name: "Accept-Charset", value: "utf-8")

    /// `Music-User-Token: <token>`, for Apple Music's API.
    public static func musicUserToken(_ userToken: String) -> NetworkRequestHeaderField {
        NetworkRequestHeaderField(name: "Music-User-Token", value: userToken)
    }
}

/// What ``HPNetworkRequestMembers/headerFields`` may be declared as: HPNetwork 2.x declared it
/// `[NetworkRequestHeaderField]?`, its README (and HPNetwork 3) `[NetworkRequestHeaderField]`.
///
/// Both spellings are honoured. A property of another type than the requirement's would not be
/// the requirement: it would compile and its fields would silently never be sent. So the type is
/// an associated type, inferred from the request's own declaration, and this protocol lists the
/// two types it can be. You never use it directly.
public protocol NetworkRequestHeaderFieldList {
    /// The fields, in order.
    var requestHeaderFields: [NetworkRequestHeaderField] { get }
}

extension Array: NetworkRequestHeaderFieldList where Element == NetworkRequestHeaderField {
    /// The fields themselves.
    public var requestHeaderFields: [NetworkRequestHeaderField] { self }
}

extension Optional: NetworkRequestHeaderFieldList where Wrapped == [NetworkRequestHeaderField] {
    /// The fields, or none for `nil`.
    public var requestHeaderFields: [NetworkRequestHeaderField] { self ?? [] }
}

extension NetworkRequestHeaderFieldList {
    /// The fields as ``NetworkRequest/headers``: a later field replaces an earlier one with the
    /// same name, names compared without case (what `URLRequest.setValue` did for HPNetwork).
    var headerDictionary: [String: String] {
        let fields = requestHeaderFields
        guard !fields.isEmpty else { return [:] }
        var headers: [String: String] = [:]
        for field in fields {
            if let existing = headers.keys.first(where: { HTTPHeaders.namesMatch($0, field.name) }) {
                headers[existing] = nil
            }
            headers[field.name] = field.value
        }
        return headers
    }
}
