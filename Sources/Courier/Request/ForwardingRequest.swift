import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request that runs another one, its ``base``, and states only what it changes: every member
/// it does not declare is the base request's.
///
/// Write a wrapper by declaring `base` and the members that differ; the rest (URL, method,
/// headers, body, credentials, deadline, retries, rate limit, accepted statuses and types,
/// `URLRequest`, validation, error conversion, the callback queue, and the output when it is
/// the base's type) forward on their own, including members added to ``NetworkRequest`` later.
///
/// The functions forward too, so the base's own `makeURLRequest()` and `validate(_:)` are what
/// run, reading the base's members: a base that builds its `URLRequest` itself keeps doing so
/// through any wrapper. A wrapper that changes what goes out (URL, method, headers, body,
/// credentials) therefore adapts the base's `URLRequest`, and one that changes what is accepted
/// declares `validate(_:)`; ``NetworkRequest/timeout``, ``NetworkRequest/retryPolicy`` and ``NetworkRequest/rateLimit`` are read by Courier
/// itself and take effect as declared.
///
/// ```swift
/// /// Any request, with a trace header added and a shorter deadline.
/// struct Traced<Base: NetworkRequest>: ForwardingRequest {
///     typealias Output = Base.Output
///     let base: Base
///     let traceID: String
///     var timeout: TimeInterval { 5 }
///     func makeURLRequest() throws -> URLRequest {
///         var request = try base.makeURLRequest()
///         request.setValue(traceID, forHTTPHeaderField: "X-Trace-ID")
///         return request
///     }
/// }
/// ```
///
/// ``RequestWithResponse`` is one: it changes only the output.
public protocol ForwardingRequest: NetworkRequest {
    /// The type of the request this one runs.
    associatedtype Base: NetworkRequest
    /// The request this one runs, and whose members it keeps.
    var base: Base { get }
}

extension ForwardingRequest {
    /// The base request's URL.
    public func makeURL() throws -> URL { try base.makeURL() }
    /// The base request's method.
    public var method: HTTPMethod { base.method }
    /// The base request's headers.
    public var headers: [String: String] { base.headers }
    /// The base request's body.
    public var body: RequestBody? { base.body }
    /// The base request's credentials.
    public var authentication: Authentication? { base.authentication }
    /// The base request's deadline.
    public var timeout: TimeInterval { base.timeout }
    /// The base request's retry policy (`nil`: the network's).
    public var retryPolicy: RetryPolicy? { base.retryPolicy }
    /// The base request's rate limit (`nil`: the network's).
    public var rateLimit: RateLimit? { base.rateLimit }
    /// The base request's idle and connect timeouts (each `nil`: the network's).
    public var transferOptions: TransferOptions { base.transferOptions }
    /// The base request's accepted statuses.
    public var acceptedStatusCodes: Set<Int> { base.acceptedStatusCodes }
    /// The base request's accepted media types.
    public var acceptedContentTypes: [String]? { base.acceptedContentTypes }
    /// The base request's callback queue, if it chose one (HPNetwork's `finishingQueue`).
    public var finishingQueue: DispatchQueue { base.finishingQueue }
    /// The base request's `URLRequest`.
    public func makeURLRequest() throws -> URLRequest { try base.makeURLRequest() }
    /// The base request's validation.
    public func validate(_ response: HTTPResponse) throws { try base.validate(response) }
    /// The base request's error conversion.
    public func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        base.convertError(error, response: response)
    }
}

extension ForwardingRequest where Output == Base.Output {
    /// The base request's output, when the wrapper keeps its type.
    public func output(from body: Data, response: HTTPResponse) throws -> Output {
        try base.output(from: body, response: response)
    }
}
