import Foundation

extension URLBuilder {
    /// HPNetwork 2.x's initializer, scheme first: the same as ``init(host:scheme:port:)``.
    ///
    /// ```swift
    /// let builder = URLBuilder(scheme: "http", host: "localhost")
    /// ```
    public init(scheme: String, host: String) {
        self.init(host: host, scheme: scheme)
    }

    /// HPNetwork 2.x's throwing build: the same as ``build()``, which throws in Courier.
    /// (HPNetwork's own `build()` returned `URL?`; write `try? builder.build()` for that.)
    ///
    /// ```swift
    /// func makeURL() throws -> URL {
    ///     try URLBuilder(host: "api.example.com").addingPathComponent("posts").buildThrowing()
    /// }
    /// ```
    public func buildThrowing() throws -> URL {
        try build()
    }
}
