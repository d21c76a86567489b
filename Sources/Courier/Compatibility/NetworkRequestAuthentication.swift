/// HPNetwork 2.x's name for Courier's ``Authentication``.
///
/// It is the same type, on purpose: a request's `var authentication: NetworkRequestAuthentication?`
/// then *is* ``NetworkRequest/authentication``, so its credentials are always sent. (A separate
/// type would make that property a different member, which would compile and send nothing.)
/// HPNetwork's case spellings are the factory functions below.
///
/// ```swift
/// var authentication: NetworkRequestAuthentication? { .bearer(token: session.token) }
/// ```
public typealias NetworkRequestAuthentication = Authentication

extension Authentication {
    /// A bearer token, as HPNetwork spelt it: the same as ``bearer(_:)``.
    ///
    /// ```swift
    /// let credentials: NetworkRequestAuthentication = .bearer(token: "abc")   // Authorization: Bearer abc
    /// ```
    public static func bearer(token: String) -> Authentication {
        .bearer(token)
    }

    /// The `Authorization` value exactly as given, as HPNetwork spelt it: the same as ``raw(_:)``.
    ///
    /// ```swift
    /// let credentials: NetworkRequestAuthentication = .raw(string: "Token abc")   // Authorization: Token abc
    /// ```
    public static func raw(string: String) -> Authentication {
        .raw(string)
    }
}
