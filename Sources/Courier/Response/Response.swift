import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's output together with the head of the response it came from: status, headers and
/// final URL. The output of ``NetworkRequest/withResponse()``.
///
/// `response.body` is always empty. The body has already gone into ``value`` (for a `Data`
/// output it *is* the value), and keeping a second copy next to a decoded value would double the
/// memory a large response costs. A `Data` output could carry its bytes for free (the two
/// would share storage), but then whether `response.body` is filled would depend on the output
/// type; one rule for every output is easier to rely on. Errors keep carrying the whole body
/// (``NetworkError/httpStatus(_:)``, ``NetworkError/decodingFailed(_:_:)``).
///
/// ```swift
/// let page = try await network.response(for: ListPosts(page: 2).withResponse())
/// print(page.value.count, "posts")
/// print(page.statusCode)                          // 200
/// print(page.headers["Link"] ?? "no next page")   // pagination
/// print(page.headers["ETag"] ?? "")
/// ```
public struct Response<Output> {
    /// The request's output, made from the body as the request defines.
    ///
    /// ```swift
    /// let posts: [Post] = page.value
    /// ```
    public var value: Output
    /// The response's head: status, headers and final URL. Its `body` is empty (see above).
    ///
    /// ```swift
    /// print(page.response.url?.absoluteString ?? "", page.response.statusCode)
    /// ```
    public var response: HTTPResponse

    /// Creates a value; Courier makes these for ``NetworkRequest/withResponse()``.
    ///
    /// ```swift
    /// let canned = Response(value: [Post](), response: HTTPResponse(statusCode: 200))
    /// ```
    public init(value: Output, response: HTTPResponse) {
        self.value = value
        self.response = response
    }

    /// The HTTP status code, e.g. `201` for a created resource.
    ///
    /// ```swift
    /// if created.statusCode == 201 { print("new post at", created.headers["Location"] ?? "?") }
    /// ```
    public var statusCode: Int { response.statusCode }

    /// The response header fields, looked up without regard to case.
    ///
    /// ```swift
    /// let remaining = page.headers["X-RateLimit-Remaining"].flatMap(Int.init)
    /// ```
    public var headers: HTTPHeaders { response.headers }

    /// How the response came: the phases of its transfer, the connection, the bytes on the wire
    /// (see ``TransferMetrics``); the same as ``HTTPResponse/metrics`` of ``response``. Filled for
    /// every request that went over the network, on each engine as far as it measures (see
    /// <doc:Wire>); `nil` for a response made by hand or by a stub.
    ///
    /// ```swift
    /// let page = try await network.response(for: Request<Data>.get(url).withResponse())
    /// print(page.metrics?.total ?? .nan, "s,", page.metrics?.bytesReceived ?? 0, "bytes on the wire")
    /// ```
    public var metrics: TransferMetrics? { response.metrics }
}

extension Response: Sendable where Output: Sendable {}
extension Response: Equatable where Output: Equatable {}
extension Response: Hashable where Output: Hashable {}

extension NetworkRequest {
    /// The same request, its output paired with the response's status, headers and URL.
    ///
    /// Everything else stays as this request defines it: URL, method, headers, body, deadline,
    /// retries, validation, decoding and error conversion. Works in every calling convention
    /// and with progress, like any request.
    ///
    /// ```swift
    /// network.schedule(GetUser(id: 1).withResponse()) { result in
    ///     if case .success(let user) = result {
    ///         print(user.value.name, user.headers["ETag"] ?? "")
    ///     }
    /// }
    /// let page = try Request<Data>.get(url).decoding([Post].self).withResponse().scheduleSynchronously().get()
    /// ```
    public func withResponse() -> RequestWithResponse<Self> {
        RequestWithResponse(base: self)
    }
}

/// A request whose output is its base request's output plus the response head; made by
/// ``NetworkRequest/withResponse()``.
///
/// ```swift
/// let request: RequestWithResponse<GetUser> = GetUser(id: 1).withResponse()
/// let user = try await request.response(on: network)
/// print(user.value.name, user.statusCode)
/// ```
public struct RequestWithResponse<Base: NetworkRequest>: ForwardingRequest {
    /// The output type: the base request's output with the response head.
    ///
    /// ```swift
    /// let user: RequestWithResponse<GetUser>.Output = try await network.response(for: GetUser(id: 1).withResponse())
    /// ```
    public typealias Output = Response<Base.Output>

    /// The request this one runs; every member but the output is its (see ``ForwardingRequest``).
    ///
    /// ```swift
    /// let id = GetUser(id: 1).withResponse().base.id   // 1
    /// ```
    public let base: Base

    /// Wraps `base`; usually written `base.withResponse()`.
    ///
    /// ```swift
    /// let request = RequestWithResponse(base: GetUser(id: 1))
    /// ```
    public init(base: Base) {
        self.base = base
    }

    /// The base request's output, with the response head (its body left out).
    ///
    /// ```swift
    /// let user = try GetUser(id: 1).withResponse().output(from: body, response: response)   // user.value, user.headers
    /// ```
    public func output(from body: Data, response: HTTPResponse) throws -> Response<Base.Output> {
        let value = try base.output(from: body, response: response)
        var head = response
        head.body = Data()
        return Response(value: value, response: head)
    }
}
