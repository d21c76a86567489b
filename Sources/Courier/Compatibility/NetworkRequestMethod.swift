/// HPNetwork 2.x's request method, kept so that requests written for it compile unchanged.
///
/// Courier's own type is ``HTTPMethod``: a request that declares
/// ``HPNetworkRequestMembers/requestMethod`` is sent with ``httpMethod``, through the default
/// of ``NetworkRequest/method``. This stays an enum of its own (rather than a name for
/// ``HTTPMethod``) so that what HPNetwork code does with it still works: exhaustive `switch`,
/// `allCases`, `Codable`, `id`.
///
/// ```swift
/// struct DeletePost: NetworkRequest {
///     typealias Output = Data
///     let id: Int
///     var requestMethod: NetworkRequestMethod { .delete }   // sent as DELETE
///     func makeURL() throws -> URL { try URLBuilder(host: "api.example.com").addingPathComponents(["posts", String(id)]).build() }
/// }
/// ```
public enum NetworkRequestMethod: String, Codable, CaseIterable, Identifiable, Hashable, Sendable {
    /// `GET`.
    case get = "GET"
    /// `POST`.
    case post = "POST"
    /// `HEAD`.
    case head = "HEAD"
    /// `PUT`.
    case put = "PUT"
    /// `DELETE`.
    case delete = "DELETE"
    /// `CONNECT`: a proxy tunnel, which neither of Courier's engines sends as a request.
    case connect = "CONNECT"
    /// `OPTIONS`.
    case options = "OPTIONS"
    /// `TRACE`.
    case trace = "TRACE"
    /// `PATCH`.
    case patch = "PATCH"

    /// The method token, as HPNetwork's `Identifiable` conformance had it.
    public var id: String { rawValue }

    /// The same method as Courier's ``HTTPMethod``.
    ///
    /// ```swift
    /// NetworkRequestMethod.patch.httpMethod == .patch   // true
    /// ```
    public var httpMethod: HTTPMethod {
        // The common ones are the predefined values: no string is made or upper-cased, so a
        // request's `method` costs what it did before this type existed.
        switch self {
        case .get: return .get
        case .post: return .post
        case .head: return .head
        case .put: return .put
        case .delete: return .delete
        case .options: return .options
        case .patch: return .patch
        case .connect, .trace: return HTTPMethod(rawValue: rawValue)
        }
    }
}
