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
/// converting errors. Everything else is the base request's.
///
/// `NetworkCore` wraps every request it is given in one, so the transfers themselves know
/// nothing about coders.
///
/// Its members forward by hand, not through ``ForwardingRequest``'s defaults: this wrapper is on
/// every request's path, and a default reads `base` through the protocol's getter, which copies
/// the whole request each time (about 1,200 instructions a request, measured with callgrind on
/// the stub benchmark, with as many retains and releases again).
struct CodingScopedRequest<Base: NetworkRequest>: NetworkRequest {
    typealias Output = Base.Output

    let base: Base
    let coders: SharedCoders

    func makeURL() throws -> URL { try base.makeURL() }
    var method: HTTPMethod { base.method }
    var headers: [String: String] { base.headers }
    var body: RequestBody? { base.body }
    var authentication: Authentication? { base.authentication }
    var timeout: TimeInterval { base.timeout }
    var retryPolicy: RetryPolicy? { base.retryPolicy }
    var rateLimit: RateLimit? { base.rateLimit }
    var acceptedStatusCodes: Set<Int> { base.acceptedStatusCodes }
    var acceptedContentTypes: [String]? { base.acceptedContentTypes }
    var finishingQueue: DispatchQueue { base.finishingQueue }

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
