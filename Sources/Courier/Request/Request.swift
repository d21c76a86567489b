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
    /// The order to send ``headers`` in, by name (ignoring case): the fields named here first, in
    /// this order, then the others. Default: none, the dictionary's order, which changes from one
    /// run of a program to the next. Where the receiver cares (a signature over the fields, a
    /// comparison with what curl sends), name them here. Kept on the curl engine, which puts only
    /// the fields libcurl writes itself (`Host`, `User-Agent`, `Accept`, …) where curl does;
    /// URLSession sends its fields in an order of its own.
    ///
    /// ```swift
    /// var request = Request<Data>.get(url, headers: ["X-Date": date, "X-Signature": signature])
    /// request.headerOrder = ["X-Date", "X-Signature"]
    /// ```
    public var headerOrder: [String] = []
    /// The body to send.
    public var body: RequestBody?
    /// Credentials for the `Authorization` header.
    public var authentication: Authentication?
    /// The overall deadline in seconds (see ``NetworkRequest/timeout``): any value is accepted;
    /// a negative one or NaN fails the request with ``NetworkError/invalidRequest(_:)``.
    public var timeout: TimeInterval
    /// Query items added to the URL, after any it has already; percent-encoded like
    /// ``URLBuilder``'s (RFC 3986: a `+` is sent as `%2B`, a space as `%20`). Usually filled by
    /// ``addingQuery(_:encoder:)``.
    ///
    /// ```swift
    /// var request = Request<Data>.get("https://api.example.com/items?v=1")
    /// request.queryItems.append(URLQueryItem(name: "q", value: "a+b"))   // …/items?v=1&q=a%2Bb
    /// ```
    public var queryItems: [URLQueryItem] = []
    /// The statuses accepted as success, any set of them; anything else is
    /// ``NetworkError/httpStatus(_:)``. Default: `200..<300`.
    ///
    /// ```swift
    /// var request = Request<Data>.get(feedURL, headers: ["If-None-Match": etag])
    /// request.acceptedStatusCodes = Set(200..<300).union([304])
    /// ```
    public var acceptedStatusCodes: Set<Int> = ResponseValidation.successStatusCodes
    /// The accepted statuses as a range: setting it replaces ``acceptedStatusCodes`` with the
    /// range's codes; reading it gives the smallest range holding them all.
    ///
    /// Any range is accepted: only its codes from 0 to 999 are kept (a status has three digits;
    /// a set of every `Int` would not fit in memory). A set holding `Int.max`, which no range
    /// can end after, reads as a range ending at `Int.max`.
    ///
    /// ```swift
    /// var request = Request<Data>.get(url)
    /// request.acceptableStatusCodes = 200..<400   // redirects and 304 count as success too
    /// ```
    public var acceptableStatusCodes: Range<Int> {
        get {
            guard let lowest = acceptedStatusCodes.min(), let highest = acceptedStatusCodes.max() else { return 0..<0 }
            // `highest + 1` traps for `Int.max`.
            return lowest..<(highest == .max ? .max : highest + 1)
        }
        set { acceptedStatusCodes = Set(newValue.clamped(to: ResponseValidation.possibleStatusCodes)) }
    }
    /// The media types accepted (`application/json`, `text/*`, `*/*`), or `nil` for any; see
    /// ``NetworkRequest/acceptedContentTypes``. Another type fails with
    /// ``NetworkError/unexpectedContentType(expected:response:)``. Default: `nil`.
    ///
    /// ```swift
    /// var request = Request<Data>.get(userURL).decoding(User.self)
    /// request.acceptedContentTypes = ["application/json"]
    /// ```
    public var acceptedContentTypes: [String]?
    /// The most bytes per second this request receives and sends (see
    /// ``NetworkRequest/rateLimit``); `nil` for the network's. Default: `nil`.
    ///
    /// ```swift
    /// var request = Request<Data>.get(isoURL)
    /// request.rateLimit = RateLimit(receiveBytesPerSecond: 1 << 20)   // 1 MiB/s
    /// ```
    public var rateLimit: RateLimit?
    /// The idle and connect timeouts of this request, each `nil` for the network's (see
    /// ``TransferOptions``). Default: the network's.
    ///
    /// ```swift
    /// var request = Request<Data>.get(isoURL)
    /// request.transferOptions.idleTimeout = 10   // 10 s without a byte is a stall
    /// ```
    public var transferOptions = TransferOptions()

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

    /// Resolves ``location`` into a URL and adds ``queryItems`` to it.
    public func makeURL() throws -> URL {
        let url: URL
        switch location {
        case let .url(located):
            url = located
        case let .string(string):
            guard let located = URL(string: string) else { throw NetworkError.invalidURL(Redaction.standard.redact(urlString: string)) }
            url = located
        case let .builder(builder):
            url = try builder.build()
        }
        guard !queryItems.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw NetworkError.invalidURL(url.absoluteString)
        }
        let added = URLBuilder.percentEncodedQuery(queryItems.map { URLBuilder.QueryItem(name: $0.name, value: $0.value) })
        let present = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedQuery = present.map { $0 + "&" + added } ?? added
        guard let withQuery = components.url else { throw NetworkError.invalidURL(url.absoluteString) }
        return withQuery
    }

    /// The same request with the query items of an `Encodable` value added to its URL (see
    /// ``URLQueryEncoder`` for the rules).
    ///
    /// ```swift
    /// struct Page: Encodable { let page: Int; let perPage: Int; let tags: [String] }
    /// let request = try Request<Data>.get(issuesURL)
    ///     .addingQuery(Page(page: 2, perPage: 50, tags: ["bug"]), encoder: URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase))
    ///     .decoding([Issue].self)
    /// // GET …/issues?page=2&per_page=50&tags%5B%5D=bug
    /// ```
    ///
    /// - Throws: ``NetworkError/encodingFailed(_:)`` with the encoder's error.
    public func addingQuery(_ value: some Encodable, encoder: URLQueryEncoder = URLQueryEncoder()) throws -> Request<Output> {
        var copy = self
        do {
            copy.queryItems += try encoder.encode(value)
        } catch {
            throw NetworkError.encodingFailed(error)
        }
        return copy
    }

    /// The same request, accepting exactly `statusCodes` as success.
    ///
    /// ```swift
    /// let request = Request<Data>.get(feedURL).accepting(statusCodes: Set(200..<300).union([304]))
    /// ```
    public func accepting(statusCodes: Set<Int>) -> Request<Output> {
        var copy = self
        copy.acceptedStatusCodes = statusCodes
        return copy
    }

    /// The same request, accepting only responses of these media types (a proxy's HTML page
    /// then fails as ``NetworkError/unexpectedContentType(expected:response:)`` rather than
    /// reaching the decoder).
    ///
    /// ```swift
    /// let request = Request<Data>.get(userURL).accepting(contentTypes: ["application/json"]).decoding(User.self)
    /// ```
    public func accepting(contentTypes: [String]) -> Request<Output> {
        var copy = self
        copy.acceptedContentTypes = contentTypes
        return copy
    }

    /// Maps failures with the conversion set by ``decodingErrors(as:decoder:)``, if any.
    public func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        errorConversion?(error, response) ?? error
    }

    /// The same request, with error responses whose body decodes as `type` reported as
    /// ``ServerError`` (status, headers and raw bytes kept). `decoder` defaults to the running
    /// network's ``Network/jsonDecoder``.
    public func decodingErrors<Model: Decodable & Sendable>(as type: Model.Type, decoder: JSONDecoder? = nil) -> Request<Output> {
        let decoder = UncheckedSendable(decoder)  // read-only use, see decoding(_:decoder:)
        var copy = self
        copy.errorConversion = { error, _ in
            ErrorBodyDecoding.convert(error, as: Model.self, decoder: decoder.value ?? SharedCoders.decoder)
        }
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
        request.queryItems = queryItems
        request.headerOrder = headerOrder
        request.acceptedStatusCodes = acceptedStatusCodes
        request.acceptedContentTypes = acceptedContentTypes
        request.rateLimit = rateLimit
        request.transferOptions = transferOptions
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

    /// The same request, its body decoded from JSON as `type` with `decoder`, or with the running
    /// network's ``Network/jsonDecoder`` when none is given.
    public func decoding<T: Decodable & Sendable>(_ type: T.Type, decoder: JSONDecoder? = nil) -> Request<T> {
        // JSONDecoder is a class; the request only reads it, so sharing it across threads is safe.
        let decoder = UncheckedSendable(decoder)
        return map { try (decoder.value ?? SharedCoders.decoder).decode(T.self, from: $0) }
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
