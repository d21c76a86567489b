import Foundation

/// An output a response body turns into with no code of the request's: a request whose
/// ``NetworkRequest/Output`` is one needs no ``NetworkRequest/output(from:response:)``.
///
/// `Data` (the body bytes, untouched), `String` (the body as UTF-8 text; a body that is not valid
/// UTF-8 fails with ``NetworkError/decodingFailed(_:_:)`` rather than being silently repaired) and
/// ``EmptyResponse`` (any body, including none) are.
///
/// The default is written once for all of them, over this protocol, rather than once per type
/// (`where Output == Data`, …): those concrete defaults made Swift infer `Output` from them, so a
/// generic `struct Get<Output: Decodable>: DecodableRequest` did not compile (its `Output` was
/// inferred as both `Data` and `String`).
///
/// ```swift
/// struct Ping: NetworkRequest {
///     typealias Output = String   // the body as text; nothing else to write
///     func makeURL() throws -> URL { URL(string: "https://api.example.com/ping")! }
/// }
/// ```
public protocol ResponseBodyConvertible {
    /// Makes the output of a response body.
    init(responseBody body: Data, response: HTTPResponse) throws
}

extension Data: ResponseBodyConvertible {
    /// The body bytes, untouched.
    public init(responseBody body: Data, response: HTTPResponse) { self = body }
}

extension String: ResponseBodyConvertible {
    /// The body as UTF-8 text; a body that is not valid UTF-8 throws.
    public init(responseBody body: Data, response: HTTPResponse) throws {
        self = try ResponseDecoding.utf8String(body)
    }
}

extension EmptyResponse: ResponseBodyConvertible {
    /// Accepts any body, including none (`204 No Content`).
    public init(responseBody body: Data, response: HTTPResponse) { self.init() }
}
