import Foundation

/// An API's own error, decoded from the body of an error response, with the response kept.
///
/// ```swift
/// struct APIProblem: Decodable, Sendable { let code: String; let message: String }
/// do { … } catch let error as ServerError<APIProblem> {
///     print(error.statusCode, error.model.message, error.response.headers["Request-Id"] ?? "")
/// }
/// ```
public struct ServerError<Model: Sendable>: Error, Sendable {
    /// The decoded error body.
    public let model: Model
    /// The whole response: status, headers and raw body bytes.
    public let response: HTTPResponse

    /// The HTTP status code.
    public var statusCode: Int { response.statusCode }

    /// Creates the error.
    public init(model: Model, response: HTTPResponse) {
        self.model = model
        self.response = response
    }
}

/// A request whose error responses carry a typed body, ``ErrorModel``.
///
/// A non-acceptable status whose body decodes as ``ErrorModel`` fails with ``ServerError``;
/// one whose body does not decode keeps failing with ``NetworkError/httpStatus(_:)``, so nothing
/// is lost either way.
public protocol ErrorDecodingRequest: NetworkRequest {
    /// The error body's type.
    associatedtype ErrorModel: Decodable & Sendable
    /// The decoder for error bodies. Default: the ``Network/jsonDecoder`` of the network that
    /// runs the request (a plain `JSONDecoder()` when called outside one).
    ///
    /// ```swift
    /// var errorDecoder: JSONDecoder { problemDecoder }   // this API's errors only
    /// ```
    var errorDecoder: JSONDecoder { get }
}

extension ErrorDecodingRequest {
    /// Default: the running network's ``Network/jsonDecoder``.
    public var errorDecoder: JSONDecoder { SharedCoders.decoder }

    /// Decodes ``ErrorModel`` from an error response's body into a ``ServerError``.
    public func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        ErrorBodyDecoding.convert(error, as: ErrorModel.self, decoder: errorDecoder)
    }
}

enum ErrorBodyDecoding {
    static func convert<Model: Decodable & Sendable>(_ error: NetworkError, as model: Model.Type, decoder: JSONDecoder) -> any Error {
        guard case let .httpStatus(response) = error,
              let decoded = try? decoder.decode(Model.self, from: response.body) else { return error }
        return ServerError(model: decoded, response: response)
    }
}
