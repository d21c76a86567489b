import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a network's observers learn of a WebSocket's opening handshake, told as of any request
/// (one attempt, its own id): the `GET` that asks for the upgrade, the server's answer, and why
/// it failed if the socket never opened. Called on the socket's thread, as a request's events
/// are on Courier's threads; secrets are redacted by the observers themselves, as everywhere
/// (``LoggingObserver``).
struct WebSocketUpgradeObservers: Sendable {
    var observers: [any NetworkObserver] = []
    var context = RequestContext(id: 0, attempt: 1, method: .get, url: nil)

    /// The handshake's `GET`, with the fields Courier adds and the ones the socket's options
    /// and network give it (the key itself left out: it is made for this connection alone).
    func willSend(url: URL, headers: [(name: String, value: String)]) {
        guard !observers.isEmpty else { return }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("websocket", forHTTPHeaderField: "Upgrade")
        request.setValue("Upgrade", forHTTPHeaderField: "Connection")
        request.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")
        for observer in observers { observer.willSend(request, context: context) }
    }

    func didReceive(_ response: HTTPResponse) {
        for observer in observers { observer.didReceive(response, context: context) }
    }

    /// The socket ended before it opened: `error` as the ``NetworkError`` a request would have
    /// failed with.
    func didFail(_ error: WebSocketError, url: URL, handshakeTimeout: TimeInterval) {
        guard !observers.isEmpty else { return }
        let failure: NetworkError
        switch error {
        case let .connectionFailed(underlying): failure = underlying
        case let .handshakeRejected(status, headers): failure = .httpStatus(HTTPResponse(statusCode: status, headers: headers, url: url))
        case let .invalidHandshake(detail): failure = .invalidResponse(detail)
        case .cancelled, .closed: failure = .cancelled
        case .timedOut: failure = .timedOut(TimeoutExceeded(kind: .requestDeadline, seconds: handshakeTimeout, url: url))
        default: failure = .invalidResponse(error.description)
        }
        for observer in observers { observer.didFail(failure, context: context) }
    }
}
