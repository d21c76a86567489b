import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Network {
    /// A network that sends nothing: a ``StubServer``'s rules answer every request. For tests
    /// of code built on Courier (see <doc:Testing>).
    ///
    /// Everything else is real: the request is built, adapted by the interceptors, queued
    /// behind the concurrency limit, given a deadline, retried, validated and decoded, with
    /// progress, and its completion delivered exactly once on the callback queue. The replies
    /// arrive as URLSession's delegate calls would, so ``Network/engine`` is
    /// ``Network/Engine/urlSession``.
    ///
    /// ```swift
    /// let server = StubServer()
    /// server.on(.get, "/users/1", reply: .json(#"{"id":1,"name":"Ada"}"#))
    /// let network = Network(stub: server)
    /// ```
    public convenience init(stub server: StubServer, callbackQueue: DispatchQueue = .main, maximumConcurrentRequests: Int = 6) {
        self.init(stubAnswering: server.reply(to:), callbackQueue: callbackQueue, maximumConcurrentRequests: maximumConcurrentRequests)
    }

    /// A network that answers every request with `respond` instead of sending it; the simplest
    /// stub, also used to measure Courier's own overhead. ``init(stub:callbackQueue:maximumConcurrentRequests:)``
    /// with a ``StubServer`` adds rules, failures, latency, chunked bodies and a record of the
    /// requests. `respond` runs on Courier's delegate queue: keep it quick and non-blocking.
    public convenience init(
        stub respond: @escaping @Sendable (URLRequest) -> StubResponse,
        callbackQueue: DispatchQueue = .main,
        maximumConcurrentRequests: Int = 6
    ) {
        self.init(stubAnswering: { .response(respond($0)) }, callbackQueue: callbackQueue,
                  maximumConcurrentRequests: maximumConcurrentRequests)
    }

    private convenience init(stubAnswering answer: @escaping @Sendable (URLRequest) -> StubReply,
                             callbackQueue: DispatchQueue, maximumConcurrentRequests: Int) {
        self.init(core: NetworkCore(maximumConcurrentRequests: maximumConcurrentRequests) { registry, delegateQueue in
            StubTransport(answer: answer, registry: registry, delegateQueue: delegateQueue)
        }, engine: .stub, callbackQueue: callbackQueue)
    }
}
