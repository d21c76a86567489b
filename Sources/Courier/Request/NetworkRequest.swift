import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A description of one HTTP request and of how to turn its response into a value.
///
/// A request is described once and can then be run in every calling convention with the same
/// semantics: ``Network/schedule(_:callbackQueue:progress:completion:)`` (callbacks),
/// ``Network/scheduleSynchronously(_:timeout:progress:)`` (blocking) and
/// ``Network/response(for:progress:)-2f8cw`` (async/await).
///
/// Only ``makeURL()`` and ``output(from:response:)`` have no default; ``Output`` of `Data`, `String`
/// and ``EmptyResponse`` get `output(from:response:)` for free, and ``DecodableRequest`` decodes JSON.
///
/// ```swift
/// struct User: Decodable, Sendable { let id: Int; let name: String }
/// struct GetUser: DecodableRequest {
///     typealias Output = User
///     let id: Int
///     func makeURL() throws -> URL {
///         try URLBuilder(host: "api.example.com").addingPathComponents(["users", String(id)]).build()
///     }
/// }
/// ```
///
/// Requests written for HPNetwork 2.x compile too: their members (`requestMethod`,
/// `headerFields`, `httpBody`, `convertError(_:data:response:)`, `finishingQueue`) are the
/// requirements of ``HPNetworkRequestMembers``, which the defaults below read
/// (<doc:Migrating>).
public protocol NetworkRequest: HPNetworkRequestMembers, Sendable {
    /// The value a successful response is turned into.
    ///
    /// It need not be `Sendable` (a generic `Output: Decodable`, or a class): Courier makes it on
    /// one of its threads and *moves* it to the one completion, keeping no reference, so it is
    /// never used from two threads at once; ``Network/response(for:progress:)-3w6i0`` returns one that
    /// is not `Sendable` `sending`, for use in the calling actor. Only
    /// ``Network/events(for:)``, whose stream may be read from any task, asks for `Sendable`.
    associatedtype Output

    /// The URL to request. Throwing here fails the request with ``NetworkError/invalidURL(_:)``.
    func makeURL() throws -> URL
    /// The HTTP method. Default: `.get`.
    var method: HTTPMethod { get }
    /// Header fields sent as given. Default: none. A name that is not an HTTP token, or a value
    /// with CR, LF, NUL or another control character (HTAB aside), fails the request with
    /// ``NetworkError/invalidRequest(_:)`` before anything is sent.
    var headers: [String: String] { get }
    /// The body to send, with its media type. Default: none.
    var body: RequestBody? { get }
    /// Credentials written into the `Authorization` header. Default: none. Credentials with a
    /// control character fail the request with ``NetworkError/invalidRequest(_:)``.
    var authentication: Authentication? { get }
    /// The overall deadline in seconds, counted from the moment the request starts (not while it
    /// waits in the queue). Courier enforces it with its own timer, because URLSession's resource
    /// timeout is not enforced on Linux. `.infinity` means no deadline, `0` an immediate one; a
    /// negative value or NaN fails the request with ``NetworkError/invalidRequest(_:)``. Any
    /// finite value works (URLSession is handed at most a week as its idle timeout), however
    /// small: it is counted in nanoseconds, rounded up, never taken as "none". A deadline that
    /// has passed when an attempt is about to start (`0`, `1e-9`) ends the request with
    /// ``NetworkError/timedOut(_:)`` before anything is sent, and so does one that passes before the
    /// answer is complete, even if the answer comes before the deadline's timer fires. Default: 60.
    var timeout: TimeInterval { get }
    /// How failed attempts of this request are retried; `nil` (the default) uses the Network's
    /// ``Network/retryPolicy``.
    var retryPolicy: RetryPolicy? { get }
    /// The most bytes per second this request receives and sends, each direction that is set
    /// overriding the network's (``ConnectionOptions/rateLimit``); `nil` (the default) for the
    /// network's. The curl engine only: on URLSession a limit fails the request with
    /// ``NetworkError/invalidRequest(_:)`` before anything is sent, as does a rate of 0 or less.
    ///
    /// ```swift
    /// var rateLimit: RateLimit? { RateLimit(receiveBytesPerSecond: 256 << 10) }   // at most 256 KiB/s
    /// ```
    var rateLimit: RateLimit? { get }
    /// The request's idle and connect timeouts, each `nil` for the network's (see
    /// ``TransferOptions``). Default: `TransferOptions()`, the network's.
    ///
    /// ```swift
    /// var transferOptions: TransferOptions { TransferOptions(idleTimeout: 5) }   // a stall is 5 s
    /// ```
    var transferOptions: TransferOptions { get }
    /// The statuses the default ``validate(_:)`` accepts. Default: `200..<300`.
    ///
    /// ```swift
    /// var acceptedStatusCodes: Set<Int> { Set(200..<300).union([304]) }   // 304 Not Modified too
    /// ```
    var acceptedStatusCodes: Set<Int> { get }
    /// The media types the default ``validate(_:)`` accepts, or `nil` (the default) for any.
    ///
    /// Each entry is a media type (`application/json`), a whole family (`text/*`) or `*/*`,
    /// compared without case and without parameters (`; charset=utf-8`). A response whose type
    /// matches none fails with ``NetworkError/unexpectedContentType(expected:response:)``, so a
    /// proxy's `200` HTML page never reaches your decoder. Not checked: `204` and `304`, and a
    /// response with neither a `Content-Type` nor a body.
    ///
    /// ```swift
    /// var acceptedContentTypes: [String]? { ["application/json", "application/problem+json"] }
    /// ```
    var acceptedContentTypes: [String]? { get }
    /// Builds the `URLRequest` to send. The default uses the members above; override to take full
    /// control. A relative URL is resolved against ``Network/defaults``' base URL.
    func makeURLRequest() throws -> URLRequest
    /// Decides whether a response is acceptable. Default: the status must be in
    /// ``acceptedStatusCodes`` (else ``NetworkError/httpStatus(_:)``, carrying the whole
    /// response), then the media type in ``acceptedContentTypes`` when set (else
    /// ``NetworkError/unexpectedContentType(expected:response:)``).
    func validate(_ response: HTTPResponse) throws
    /// Turns the body of an acceptable response into the output. An error thrown here (other than
    /// a ``NetworkError``) is reported as ``NetworkError/decodingFailed(_:_:)`` with the response.
    func output(from body: Data, response: HTTPResponse) throws -> Output
    /// Maps a failure to the error the caller receives, e.g. an API's own error type decoded from
    /// `response.body`. Default: the error itself.
    func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error
}

extension NetworkRequest {
    /// Default: `GET`, or the request's ``HPNetworkRequestMembers/requestMethod``.
    public var method: HTTPMethod { requestMethod.httpMethod }
    /// Default: no extra headers, or the request's ``HPNetworkRequestMembers/headerFields``.
    public var headers: [String: String] { headerFields.headerDictionary }
    /// Default: no body, or the request's ``HPNetworkRequestMembers/httpBody``.
    public var body: RequestBody? { legacyBody }
    /// Default: no credentials.
    public var authentication: Authentication? { nil }
    /// Default: 60 seconds.
    public var timeout: TimeInterval { 60 }
    /// Default: the Network's policy.
    public var retryPolicy: RetryPolicy? { nil }
    /// Default: the network's limit, if any.
    ///
    /// ```swift
    /// GetUser(id: 1).rateLimit   // nil, unless GetUser sets one
    /// ```
    public var rateLimit: RateLimit? { nil }

    /// None of its own: the network's idle and connect timeouts.
    public var transferOptions: TransferOptions { TransferOptions() }
    /// Default: `200..<300`.
    ///
    /// ```swift
    /// GetUser(id: 1).acceptedStatusCodes.contains(204)   // true, unless GetUser says otherwise
    /// ```
    public var acceptedStatusCodes: Set<Int> { ResponseValidation.successStatusCodes }
    /// Default: any media type.
    ///
    /// ```swift
    /// GetUser(id: 1).acceptedContentTypes   // nil, unless GetUser names some
    /// ```
    public var acceptedContentTypes: [String]? { nil }

    /// Default: builds the request from ``makeURL()``, ``method``, ``headers``, ``authentication`` and ``body``.
    ///
    /// `Content-Type` comes from the body unless ``headers`` already names one; `Authorization`
    /// comes from ``authentication`` when it is set, replacing any given in ``headers``.
    public func makeURLRequest() throws -> URLRequest {
        // The core's own build (``defaultWireRequest(order:checkingURL:)``), with the URL checked
        // as a request built on its own needs: a relative URL stays relative, for a base URL.
        try defaultWireRequest(checkingURL: true).urlRequest
    }

    /// Default: checks the status against ``acceptedStatusCodes`` (``NetworkError/httpStatus(_:)``
    /// if not in it), then the media type against ``acceptedContentTypes`` when set
    /// (``NetworkError/unexpectedContentType(expected:response:)``).
    public func validate(_ response: HTTPResponse) throws {
        try ResponseValidation.check(response, statusCodes: acceptedStatusCodes, contentTypes: acceptedContentTypes)
    }

    /// Default: the error itself, or what the request's
    /// ``HPNetworkRequestMembers/convertError(_:data:response:)`` makes of it.
    public func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        legacyConvertError(error, response: response)
    }
}

extension NetworkRequest where Output: ResponseBodyConvertible {
    /// The output the type makes of the body itself: the bytes for `Data`, UTF-8 text for
    /// `String`, nothing for ``EmptyResponse`` (see ``ResponseBodyConvertible``).
    public func output(from body: Data, response: HTTPResponse) throws -> Output {
        try Output(responseBody: body, response: response)
    }
}

/// A request whose output is decoded from a JSON body.
public protocol DecodableRequest: NetworkRequest where Output: Decodable {
    /// The decoder used for the body. Default: the ``Network/jsonDecoder`` of the network that
    /// runs the request (a plain `JSONDecoder()` when called outside one).
    ///
    /// ```swift
    /// // This endpoint alone sends snake_case, whatever the network's decoder does:
    /// var decoder: JSONDecoder {
    ///     let decoder = JSONDecoder()
    ///     decoder.keyDecodingStrategy = .convertFromSnakeCase
    ///     return decoder
    /// }
    /// ```
    var decoder: JSONDecoder { get }
}

extension DecodableRequest {
    /// Default: the running network's ``Network/jsonDecoder``.
    public var decoder: JSONDecoder { SharedCoders.decoder }

    /// Decodes ``NetworkRequest/Output`` from the body with ``decoder``.
    public func output(from body: Data, response: HTTPResponse) throws -> Output {
        try decoder.decode(Output.self, from: body)
    }
}

/// Shared body conversions, used by the protocol defaults and by ``Request``.
enum ResponseDecoding {
    static func utf8String(_ body: Data) throws -> String {
        guard let string = String(data: body, encoding: .utf8) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The body is not valid UTF-8."))
        }
        return string
    }
}

/// Checks that a URL can be requested at all, so a typo fails as `invalidURL` up front
/// instead of as an obscure transport error later.
enum URLValidation {
    /// `allowingRelative` accepts a URL with neither scheme nor host (to be resolved against a
    /// base URL later); anything with a scheme must be a complete http(s) URL.
    static func check(_ url: URL, allowingRelative: Bool = false) throws {
        try check(url, scheme: url.scheme, allowingRelative: allowingRelative)
    }

    /// ``check(_:allowingRelative:)`` with `url`'s scheme read already (`url.scheme`).
    static func check(_ url: URL, scheme: String?, allowingRelative: Bool = false) throws {
        // Each of `scheme` and `host` parses the URL again: read once each, and the scheme
        // compared without a lower-cased copy. The host as written: whether there is one does
        // not need it percent-decoded, which `host` does.
        let host = url.host(percentEncoded: true)
        if allowingRelative, scheme == nil, host == nil { return }
        guard let scheme, HTTPHeaders.namesMatch(scheme, "http") || HTTPHeaders.namesMatch(scheme, "https") else {
            throw NetworkError.invalidURL("\(Redaction.standard.redact(url)): only http and https URLs can be requested")
        }
        guard let host, !host.isEmpty else {
            throw NetworkError.invalidURL("\(Redaction.standard.redact(url)): the URL has no host")
        }
    }
}
