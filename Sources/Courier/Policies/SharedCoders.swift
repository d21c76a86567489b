import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The JSON coders of the ``Network`` running the current request (``Network/jsonEncoder``,
/// ``Network/jsonDecoder``), for the defaults that need them: `.json` bodies,
/// ``DecodableRequest/decoder``, ``ErrorDecodingRequest/errorDecoder``, `Request.decoding(_:)`.
///
/// They reach those defaults through a task-local value bound around the request's own code
/// (``CodingScopedRequest``), because `output(from:response:)` and `makeURLRequest()` take no
/// network argument. Outside a network (a request's method called directly, say in a test) the
/// defaults get fresh coders, as they always did.
struct SharedCoders: Sendable {
    let encoder: JSONEncoder
    let decoder: JSONDecoder

    @TaskLocal static var current: SharedCoders?

    /// The running network's encoder, or a fresh one.
    static var encoder: JSONEncoder { current?.encoder ?? JSONEncoder() }
    /// The running network's decoder, or a fresh one.
    static var decoder: JSONDecoder { current?.decoder ?? JSONDecoder() }
}

/// A request run with its network's coders bound (see ``SharedCoders``) while its own code runs:
/// building the `URLRequest` (which encodes the body), validating, producing the output and
/// converting errors. Everything else is the base request's (see ``ForwardingRequest``).
///
/// `NetworkCore` wraps every request it is given in one, so the transfers themselves know
/// nothing about coders.
struct CodingScopedRequest<Base: NetworkRequest>: ForwardingRequest {
    typealias Output = Base.Output

    let base: Base
    let coders: SharedCoders

    func makeURLRequest() throws -> URLRequest {
        try SharedCoders.$current.withValue(coders) { try base.makeURLRequest() }
    }

    func validate(_ response: HTTPResponse) throws {
        try SharedCoders.$current.withValue(coders) { try base.validate(response) }
    }

    func output(from body: Data, response: HTTPResponse) throws -> Output {
        try SharedCoders.$current.withValue(coders) { try base.output(from: body, response: response) }
    }

    func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        SharedCoders.$current.withValue(coders) { base.convertError(error, response: response) }
    }
}
