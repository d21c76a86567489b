import Foundation

/// A ready-made request for ad-hoc calls, when declaring a type per endpoint is more than needed.
///
/// ```swift
/// let page = Request<Data>.get(URL(string: "https://example.com")!)
/// let created = Request<Data>(method: .post, url: postsURL, body: .json(newPost)).decoding(Post.self)
/// ```
///
/// Start from `Request<Data>` and convert the output with ``decoding(_:decoder:)``, ``string()``,
/// ``empty()`` or ``map(_:)``.
public struct Request<Output: Sendable>: NetworkRequest {
    /// Where the request goes.
    public var location: RequestLocation
    /// The HTTP method.
    public var method: HTTPMethod
    /// Header fields sent as given.
    public var headers: [String: String]
    /// The body to send.
    public var body: RequestBody?
    /// Credentials for the `Authorization` header.
    public var authentication: Authentication?
    /// The overall deadline in seconds.
    public var timeout: TimeInterval
    /// The statuses accepted as success; anything else is ``NetworkError/httpStatus(_:)``.
    public var acceptableStatusCodes: Range<Int> = 200..<300

    private let transform: @Sendable (Data, HTTPResponse) throws -> Output
    private var errorConversion: (@Sendable (NetworkError, HTTPResponse?) -> any Error)?

    /// Creates a request with an explicit output transform.
    public init(
        method: HTTPMethod = .get,
        location: RequestLocation,
        headers: [String: String] = [:],
        body: RequestBody? = nil,
        authentication: Authentication? = nil,
        timeout: TimeInterval = 60,
        output: @escaping @Sendable (Data, HTTPResponse) throws -> Output
    ) {
        self.method = method
        self.location = location
        self.headers = headers
        self.body = body
        self.authentication = authentication
        self.timeout = timeout
        self.transform = output
    }

    /// Resolves ``location`` into a URL.
    public func makeURL() throws -> URL {
        switch location {
        case let .url(url):
            return url
        case let .string(string):
            guard let url = URL(string: string) else { throw NetworkError.invalidURL(Redaction.standard.redact(urlString: string)) }
            return url
        case let .builder(builder):
            return try builder.build()
        }
    }

    /// Accepts ``acceptableStatusCodes``.
    public func validate(_ response: HTTPResponse) throws {
        guard acceptableStatusCodes.contains(response.statusCode) else { throw NetworkError.httpStatus(response) }
    }

    /// Maps failures with the conversion set by ``decodingErrors(as:decoder:)``, if any.
    public func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        errorConversion?(error, response) ?? error
    }

    /// The same request, with error responses whose body decodes as `type` reported as
    /// ``ServerError`` (status, headers and raw bytes kept).
    public func decodingErrors<Model: Decodable & Sendable>(as type: Model.Type, decoder: JSONDecoder = JSONDecoder()) -> Request<Output> {
        let decoder = UncheckedSendable(decoder)  // read-only use, see decoding(_:decoder:)
        var copy = self
        copy.errorConversion = { error, _ in ErrorBodyDecoding.convert(error, as: Model.self, decoder: decoder.value) }
        return copy
    }

    /// Runs the output transform.
    public func output(from body: Data, response: HTTPResponse) throws -> Output {
        try transform(body, response)
    }

    /// The same request with its output produced by `transform` from this request's output.
    public func map<NewOutput: Sendable>(_ transform: @escaping @Sendable (Output) throws -> NewOutput) -> Request<NewOutput> {
        let current = self.transform
        var request = Request<NewOutput>(
            method: method, location: location, headers: headers, body: body,
            authentication: authentication, timeout: timeout
        ) { body, response in try transform(current(body, response)) }
        request.acceptableStatusCodes = acceptableStatusCodes
        request.errorConversion = errorConversion
        return request
    }
}

extension Request where Output == Data {
    /// A request to `url` whose output is the raw body.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: [String: String] = [:],
        body: RequestBody? = nil,
        authentication: Authentication? = nil,
        timeout: TimeInterval = 60
    ) {
        self.init(method: method, location: .url(url), headers: headers, body: body,
                  authentication: authentication, timeout: timeout) { body, _ in body }
    }

    /// A request to a URL given as a string, parsed when the request runs (a malformed string
    /// fails with ``NetworkError/invalidURL(_:)``).
    public init(
        method: HTTPMethod = .get,
        urlString: String,
        headers: [String: String] = [:],
        body: RequestBody? = nil,
        authentication: Authentication? = nil,
        timeout: TimeInterval = 60
    ) {
        self.init(method: method, location: .string(urlString), headers: headers, body: body,
                  authentication: authentication, timeout: timeout) { body, _ in body }
    }

    /// A `GET` of `url`, output the raw body.
    public static func get(_ url: URL, headers: [String: String] = [:]) -> Request<Data> {
        Request(url: url, headers: headers)
    }

    /// A `GET` of a URL string, output the raw body.
    public static func get(_ urlString: String, headers: [String: String] = [:]) -> Request<Data> {
        Request(urlString: urlString, headers: headers)
    }

    /// The same request, its body decoded from JSON as `type`.
    public func decoding<T: Decodable & Sendable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) -> Request<T> {
        // JSONDecoder is a class; the request only reads it, so sharing it across threads is safe.
        let decoder = UncheckedSendable(decoder)
        return map { try decoder.value.decode(T.self, from: $0) }
    }

    /// The same request, its body as UTF-8 text (invalid UTF-8 fails with ``NetworkError/decodingFailed(_:_:)``).
    public func string() -> Request<String> {
        map(ResponseDecoding.utf8String)
    }

    /// The same request, its body ignored (accepts an empty body and `204 No Content`).
    public func empty() -> Request<EmptyResponse> {
        map { _ in EmptyResponse() }
    }
}

/// Where a ``Request`` goes. A string or a builder is resolved when the request runs, so a
/// malformed one fails that request with ``NetworkError/invalidURL(_:)`` instead of trapping.
public enum RequestLocation: Sendable, Hashable {
    /// A ready URL.
    case url(URL)
    /// A string parsed when the request runs.
    case string(String)
    /// A builder run when the request runs.
    case builder(URLBuilder)
}
