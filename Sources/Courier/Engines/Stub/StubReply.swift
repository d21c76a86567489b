import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``StubServer`` rule answers: a response (whole, or in chunks over time), a transport
/// failure, or nothing at all; optionally after a delay.
///
/// ```swift
/// server.on(.get, "/users/1", reply: .json(#"{"id":1,"name":"Ada"}"#))
/// server.on(.get, "/slow", reply: .text("done").delay(0.2))
/// server.on(.get, "/video", reply: .chunks(parts, interval: 0.05))
/// server.on(.post, "/upload", reply: .failure(URLError(.notConnectedToInternet)))
/// server.on(.get, "/hangs", reply: .noAnswer)   // the request's deadline decides
/// ```
public struct StubReply: Sendable {
    enum Kind: Sendable {
        /// The head, then the body in these chunks, `interval` seconds apart; `nil`: the
        /// response's body in one piece (no array to make for each answer).
        case response(StubResponse, chunks: [Data]?, interval: TimeInterval)
        case failure(URLError)
        case noAnswer
    }

    let kind: Kind
    /// Seconds before the head, the failure, or nothing, arrives.
    private(set) var latency: TimeInterval = 0

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// Answers with `response`, its body in one piece.
    public static func response(_ response: StubResponse) -> StubReply {
        StubReply(.response(response, chunks: nil, interval: 0))
    }

    /// Answers with `status`, `headers` and `body`.
    public static func status(_ status: Int, headers: [String: String] = [:], body: Data = Data()) -> StubReply {
        .response(StubResponse(statusCode: status, headers: headers, body: body))
    }

    /// Answers with a JSON body (`Content-Type: application/json`), given as text.
    public static func json(_ json: String, status: Int = 200, headers: [String: String] = [:]) -> StubReply {
        .status(status, headers: ["Content-Type": "application/json"].merging(headers) { _, given in given }, body: Data(json.utf8))
    }

    /// Answers with a UTF-8 text body (`Content-Type: text/plain; charset=utf-8`).
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> StubReply {
        .status(status, headers: ["Content-Type": "text/plain; charset=utf-8"].merging(headers) { _, given in given }, body: Data(text.utf8))
    }

    /// Answers with a body delivered in `chunks`, `interval` seconds apart (progress events
    /// follow them). `Content-Length` is their total unless `headers` name one.
    public static func chunks(_ chunks: [Data], interval: TimeInterval, status: Int = 200, headers: [String: String] = [:]) -> StubReply {
        let response = StubResponse(statusCode: status, headers: headers, body: chunks.reduce(Data(), +))
        return StubReply(.response(response, chunks: chunks, interval: max(0, interval)))
    }

    /// Fails the attempt in the transport, as a dropped network would:
    /// `.failure(URLError(.notConnectedToInternet))`, `.failure(URLError(.timedOut))`,
    /// `.failure(URLError(.networkConnectionLost))`… Courier classifies it exactly as an error
    /// from the network (``NetworkError/transport(_:)``: a `URLError.timedOut` is a transport's
    /// idle timeout, never the request's own deadline ``NetworkError/timedOut(_:)``), and its retry
    /// policy treats it the same way.
    public static func failure(_ error: URLError) -> StubReply {
        StubReply(.failure(error))
    }

    /// Never answers: the request ends only by its deadline (``NetworkRequest/timeout``, giving
    /// ``NetworkError/timedOut(_:)``) or a cancel.
    public static var noAnswer: StubReply { StubReply(.noAnswer) }

    /// The same reply, `seconds` later (latency). The wait holds no thread: other requests are
    /// answered meanwhile, and a cancel or a deadline during it ends the request at once.
    public func delay(_ seconds: TimeInterval) -> StubReply {
        var delayed = self
        delayed.latency = max(0, seconds)
        return delayed
    }
}
