import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which methods may carry a body, checked when an attempt's task is made (after the
/// interceptors, so whatever they did is checked too): never silently dropped or changed.
///
/// - `HEAD` with a body is refused on every engine: HEAD has no defined meaning for content,
///   libcurl would drop the body without a word, and a server that reads it would then wait.
/// - `GET` with a body (some search APIs use one) is sent as it is by the curl engine, as curl
///   does. URLSession refuses it, on Linux as on Apple platforms, with a transport error that says
///   "resource exceeds maximum size" (-1103): on that engine it is refused here instead, with a
///   message that says what to do.
enum MethodBodyCheck {
    static func problem(in request: WireRequest, uploadsFromFile: Bool, transportSendsGETBodies: Bool) -> NetworkError? {
        let hasBody = uploadsFromFile || !(request.body?.isEmpty ?? true) || request.hasBodyStream
        guard hasBody else { return nil }
        // HTTPMethod normalises the spelling, as everywhere else a method is compared.
        switch HTTPMethod(rawValue: request.method) {
        case .head:
            return .invalidRequest("a HEAD request cannot carry a body")
        case .get where !transportSendsGETBodies:
            return .invalidRequest("URLSession does not send a GET with a body; use the curl engine (Network(engine: .curl)), or POST")
        default:
            return nil
        }
    }
}
