// Names kept so that code written against them still compiles, each pointing at its
// replacement. Every deprecated name of a type lives in that type's `+Deprecated.swift` file.

extension NetworkRequestHeaderField {
    /// `Content-Type: application/json`, under its older HPNetwork name.
    @available(*, deprecated, renamed: "contentTypeJSON")
    public static var json: NetworkRequestHeaderField { contentTypeJSON }
}
