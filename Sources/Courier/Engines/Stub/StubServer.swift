import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted server for testing code that uses Courier, without a network: ordered rules that
/// match requests and say what to answer, and a record of every request received.
///
/// ```swift
/// let server = StubServer()
/// server.on(.get, "/users/1", reply: .json(#"{"id":1,"name":"Ada"}"#))
/// server.on(.get, "/me", reply: .status(401), .json(#"{"id":7}"#))   // 401 first, then 200s
/// let network = Network(stub: server)
///
/// let user = try await network.response(for: GetUser(id: 1))
/// XCTAssertEqual(server.recordedRequests.last?.url?.path, "/users/1")
/// ```
///
/// Requests run through all of Courier, as over the network: the concurrency limit and its
/// queue, interceptors, deadlines, retries, validation, decoding, progress, cancellation and
/// one completion per request. Only the transport is replaced.
///
/// **Matching.** The first rule (in the order they were added) whose method, path and headers
/// match answers. A request no rule matches gets `404` with a body naming it, and is also in
/// ``unmatchedRequests``. Rules can be added at any time, from any thread.
///
/// **Sequences.** A rule with several replies gives them in order, one per request it answers
/// (every attempt counts: a retry gets the next one); the last one answers every request after.
public final class StubServer: Sendable {
    private struct State {
        var routes: [StubRoute] = []
        var recorded: [URLRequest] = []
        var unmatched: [URLRequest] = []
    }

    private let state = Locked(State())

    /// Creates a server with no rules: every request gets `404`.
    public init() {}

    /// How many rules it has.
    var ruleCount: Int { state.withLock { $0.routes.count } }

    /// Adds a rule: requests with `method` (any, if `nil`) for `path` carrying `headers` get
    /// `first`, then each of `then` in order, the last one repeated.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `nil` for any.
    ///   - path: The URL's path (`/users/1`), compared exactly (percent-decoded), the query left
    ///     out; a path ending in `*` matches every path that starts with what comes before it
    ///     (`/users/*`), and `*` alone matches every path.
    ///   - headers: Header fields the request must carry with exactly these values (names
    ///     compared without case), e.g. `["Authorization": "Bearer good"]`.
    ///   - first: What to answer the first matching request.
    ///   - then: What to answer the next ones, in order; the last reply answers every request after.
    /// - Returns: The rule, to check what it answered (``StubRoute/requests``).
    @discardableResult
    public func on(_ method: HTTPMethod? = nil, _ path: String, headers: [String: String] = [:],
                   reply first: StubReply, _ then: StubReply...) -> StubRoute {
        let route = StubRoute(matching: StubRoute.Pattern(method: method, path: path, headers: headers), replies: [first] + then)
        state.withLock { $0.routes.append(route) }
        return route
    }

    /// Adds a rule whose reply `respond` computes from the request (say, to echo its body).
    /// `respond` runs on Courier's delegate queue: keep it quick and non-blocking.
    @discardableResult
    public func on(_ method: HTTPMethod? = nil, _ path: String, headers: [String: String] = [:],
                   reply respond: @escaping @Sendable (URLRequest) -> StubReply) -> StubRoute {
        let route = StubRoute(matching: StubRoute.Pattern(method: method, path: path, headers: headers), respond: respond)
        state.withLock { $0.routes.append(route) }
        return route
    }

    /// Every request received, in order: one per attempt (a retried request appears once per
    /// attempt), as sent, with its final headers (interceptors included) and its body (a file
    /// or multipart body read back from the file it was sent from).
    public var recordedRequests: [URLRequest] { state.withLock { $0.recorded } }

    /// The requests no rule matched (answered `404`).
    public var unmatchedRequests: [URLRequest] { state.withLock { $0.unmatched } }

    /// Removes every rule and forgets every request.
    public func reset() {
        state.withLock { $0 = State() }
    }

    /// Records `request` and picks its reply. The rules' own code (a reply closure) runs
    /// outside the lock.
    func reply(to request: URLRequest) -> StubReply {
        let routes = state.withLock { state -> [StubRoute] in
            state.recorded.append(request)
            return state.routes
        }
        if let route = routes.first(where: { $0.pattern.matches(request) }) {
            return route.reply(to: request)
        }
        state.withLock { $0.unmatched.append(request) }
        let method = request.httpMethod ?? "GET"
        return .text("StubServer: no rule for \(method) \(request.url?.absoluteString ?? "?")", status: 404)
    }
}

/// One rule of a ``StubServer``: what it matches, what it answers, and what it has answered.
public final class StubRoute: Sendable {
    /// What a rule matches.
    struct Pattern: Sendable {
        let method: HTTPMethod?
        let path: String
        let headers: [String: String]

        func matches(_ request: URLRequest) -> Bool {
            if let method, HTTPMethod(rawValue: request.httpMethod ?? "GET") != method { return false }
            let requested = request.url?.path ?? ""
            if path.hasSuffix("*") {
                guard requested.hasPrefix(path.dropLast()) else { return false }
            } else if requested != path {
                return false
            }
            return headers.allSatisfy { request.value(forHTTPHeaderField: $0.key) == $0.value }
        }
    }

    private enum Answer {
        case sequence([StubReply])
        case computed(@Sendable (URLRequest) -> StubReply)
    }

    let pattern: Pattern
    private let answer: Answer
    private let answered = Locked<[URLRequest]>([])

    init(matching pattern: Pattern, replies: [StubReply]) {
        self.pattern = pattern
        self.answer = .sequence(replies)
    }

    init(matching pattern: Pattern, respond: @escaping @Sendable (URLRequest) -> StubReply) {
        self.pattern = pattern
        self.answer = .computed(respond)
    }

    /// The requests this rule answered, in order.
    public var requests: [URLRequest] { answered.withLock { $0 } }

    /// How many requests this rule answered.
    public var count: Int { answered.withLock { $0.count } }

    func reply(to request: URLRequest) -> StubReply {
        let index = answered.withLock { answered in
            answered.append(request)
            return answered.count - 1
        }
        switch answer {
        case let .sequence(replies): return replies[min(index, replies.count - 1)]
        case let .computed(respond): return respond(request)
        }
    }
}
