import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The members a request written for HPNetwork 2.x declares, under their HPNetwork names.
///
/// Every ``NetworkRequest`` has them (it refines this protocol); you never conform to it
/// yourself. They are requirements, not mere extension members, so that a request's own
/// declaration is the one Courier calls. The defaults of Courier's members read them:
///
/// | HPNetwork member | read by the default of |
/// |---|---|
/// | ``requestMethod`` | ``NetworkRequest/method`` |
/// | ``headerFields`` | ``NetworkRequest/headers`` |
/// | ``httpBody`` | ``NetworkRequest/body`` |
/// | ``convertError(_:data:response:)`` | ``NetworkRequest/convertError(_:response:)`` |
/// | ``finishingQueue`` | the callback queue of ``Network/schedule(_:callbackQueue:progress:completion:)`` |
///
/// A request that declares Courier's member as well has Courier's used: the HPNetwork one is then
/// not read. The defaults here never read Courier's members, so a request that declares neither
/// gets the plain default (`GET`, no headers, no body, the error as it is), never a loop.
/// `authentication` needs no entry: ``NetworkRequestAuthentication`` is ``Authentication``, so
/// HPNetwork's declaration is ``NetworkRequest/authentication`` itself.
public protocol HPNetworkRequestMembers {
    /// The type ``headerFields`` is declared with: `[NetworkRequestHeaderField]?` (HPNetwork 2.x,
    /// the default) or `[NetworkRequestHeaderField]` (its README). Inferred; never written.
    associatedtype HeaderFieldList: NetworkRequestHeaderFieldList = [NetworkRequestHeaderField]?
    /// The `response` type ``convertError(_:data:response:)`` is declared with: `URLResponse`
    /// when the request declares it, ``HPNetworkNoResponse`` (the default) when it does not.
    /// Inferred; never written. It tells Courier's default conversion whether there is anything
    /// to call, so that a request without one never pays for making a `URLResponse`.
    associatedtype ConvertErrorResponse: HPNetworkURLResponse = HPNetworkNoResponse

    /// HPNetwork's request method. Default: `.get`. Sent when the request does not declare
    /// ``NetworkRequest/method``; a request that does should read that instead of this.
    var requestMethod: NetworkRequestMethod { get }
    /// HPNetwork's header fields, sent when the request does not declare ``NetworkRequest/headers``.
    /// Default: none.
    var headerFields: HeaderFieldList { get }
    /// HPNetwork's body, sent when the request does not declare ``NetworkRequest/body``, as
    /// `application/octet-stream` unless ``headerFields`` names a `Content-Type`. Default: none.
    var httpBody: Data? { get }
    /// Where HPNetwork delivered the completion (and progress) of a callback request. Used by
    /// ``Network/schedule(_:callbackQueue:progress:completion:)`` when the call names no queue,
    /// in place of the network's ``Network/callbackQueue``. Default: a queue that runs its work
    /// on the main queue, as HPNetwork's `.main`, and that Courier knows as "not chosen".
    var finishingQueue: DispatchQueue { get }
    /// HPNetwork's error conversion, called by the default of
    /// ``NetworkRequest/convertError(_:response:)`` for every failure, with the body and response
    /// when there was one. `error` is a ``NetworkError`` (HPNetwork passed a `URLError` for a bad
    /// status). Default: the error itself.
    func convertError(_ error: any Error, data: Data?, response: ConvertErrorResponse?) -> any Error
}

extension HPNetworkRequestMembers {
    /// Default: `.get`.
    public var requestMethod: NetworkRequestMethod { .get }
    /// Default: no body.
    public var httpBody: Data? { nil }
    /// Default: the main queue, marked as "not chosen" (see ``finishingQueue``).
    public var finishingQueue: DispatchQueue { FinishingQueue.notChosen }
}

extension HPNetworkRequestMembers where ConvertErrorResponse == HPNetworkNoResponse {
    /// Default: the error itself.
    public func convertError(_ error: any Error, data: Data?, response: HPNetworkNoResponse?) -> any Error {
        error
    }
}

extension HPNetworkRequestMembers where HeaderFieldList == [NetworkRequestHeaderField]? {
    /// Default: no header fields.
    public var headerFields: [NetworkRequestHeaderField]? { nil }
}

/// The default ``HPNetworkRequestMembers/finishingQueue``.
enum FinishingQueue {
    /// Runs its work on the main queue, as HPNetwork's default did for anyone who reads it; known
    /// by identity, so that a request that does not choose a queue keeps the network's.
    static let notChosen = DispatchQueue(label: "courier.finishing-queue.not-chosen", target: .main)
}

extension NetworkRequest {
    /// The request's own ``HPNetworkRequestMembers/finishingQueue``, or `nil` if it chose none.
    var chosenFinishingQueue: DispatchQueue? {
        let queue = finishingQueue
        return queue === FinishingQueue.notChosen ? nil : queue
    }

    /// The body for ``HPNetworkRequestMembers/httpBody``. Its media type is said to be unknown:
    /// HPNetwork set none, and a POST body without one is labelled form data by both engines.
    var legacyBody: RequestBody? {
        httpBody.map { .data($0, contentType: "application/octet-stream") }
    }

    /// Calls ``HPNetworkRequestMembers/convertError(_:data:response:)`` the way HPNetwork did,
    /// with the body and a `URLResponse` when there was a response; nothing at all when the
    /// request declares none (making the `URLResponse` costs about 25 µs on Linux).
    func legacyConvertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        guard ConvertErrorResponse.isDeclared else { return error }
        return convertError(error, data: response?.body, response: response.flatMap(ConvertErrorResponse.make(from:)))
    }
}

/// What the `response` of ``HPNetworkRequestMembers/convertError(_:data:response:)`` is declared
/// as: `URLResponse` (HPNetwork's signature; `HTTPURLResponse` works too), or
/// ``HPNetworkNoResponse`` for the default. You never use it directly.
public protocol HPNetworkURLResponse {
    /// Whether a request declared the conversion (`false` only for ``HPNetworkNoResponse``).
    static var isDeclared: Bool { get }
    /// The response as this type, or `nil`.
    static func make(from response: HTTPResponse) -> Self?
}

extension URLResponse: HPNetworkURLResponse {
    /// `true`: a request declared `convertError(_:data:response:)` with this type.
    public static var isDeclared: Bool { true }
    /// The response as an `HTTPURLResponse`.
    public static func make(from response: HTTPResponse) -> Self? {
        response.urlResponse as? Self
    }
}

/// The `response` type of the default ``HPNetworkRequestMembers/convertError(_:data:response:)``:
/// no request declares it, so there is never a value of it.
public enum HPNetworkNoResponse: HPNetworkURLResponse {
    /// `false`: the request declared no conversion.
    public static var isDeclared: Bool { false }
    /// Never a value.
    public static func make(from response: HTTPResponse) -> HPNetworkNoResponse? { nil }
}

extension HTTPResponse {
    /// The response as Foundation's `HTTPURLResponse`, for code written against it; `nil`
    /// without a URL (Courier's responses always have one).
    var urlResponse: HTTPURLResponse? {
        guard let url else { return nil }
        var fields: [String: String] = [:]
        for (name, value) in headers {
            // Repeated fields are joined, as HTTPURLResponse itself does (RFC 9110 §5.3).
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
