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
    func convertError(_ error: any Error, data: Data?, response: URLResponse?) -> any Error
}

extension HPNetworkRequestMembers {
    /// Default: `.get`.
    public var requestMethod: NetworkRequestMethod { .get }
    /// Default: no body.
    public var httpBody: Data? { nil }
    /// Default: the main queue, marked as "not chosen" (see ``finishingQueue``).
    public var finishingQueue: DispatchQueue { FinishingQueue.notChosen }
    /// Default: the error itself.
    public func convertError(_ error: any Error, data: Data?, response: URLResponse?) -> any Error {
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

    /// Calls ``HPNetworkRequestMembers/convertError(_:data:response:)`` the way HPNetwork did:
    /// with the body and a `URLResponse` when there was a response.
    func legacyConvertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        convertError(error, data: response?.body, response: response?.urlResponse)
    }
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
