import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the cache has to do with the attempt a transfer's current task carries, decided when
/// the task was made (``CacheRules/lookup(request:policy:stored:now:)``) and acted on as its
/// events come: a `304` that revalidates, a failure that falls back on a stale response, a
/// response to store.
struct CacheUse {
    let cache: HTTPCache
    /// The key of the request's URL (``HTTPCache/key(for:)``).
    let key: String
    /// The request's header fields by lowercased name, as sent but for the cache's conditions
    /// (its `Vary` fields are read from them).
    let fields: [String: String]
    let requestURL: URL
    let requestTime: Date
    var responseTime: Date?
    /// Whether the response may be stored (the request did not say `no-store`).
    let stores: Bool
    /// The stored response the request asks the server to confirm.
    let validating: CachedResponse?
    /// The stored response to answer with should the server fail (`stale-if-error`).
    var staleIfError: CachedResponse?

    /// What the transfer hands its body in place of `head`, if the cache answers instead: the
    /// stored response brought up to date by a `304` (which the transfer stores again), or the
    /// stale one on a `5xx`; `nil` when `head` is the answer.
    mutating func replacement(for head: HTTPResponse, now: Date) -> (response: CachedResponse, status: CacheStatus)? {
        responseTime = now
        if head.statusCode == 304, let validating, head.url.map(HTTPCache.key) == key {
            staleIfError = nil
            return (validating.updated(by: head.headers, requestTime: requestTime, responseTime: now), .revalidated)
        }
        if (500...599).contains(head.statusCode), let stale = staleIfError.take() { return (stale, .staleAfterError) }
        return nil
    }

    /// Stores `response`, a complete answer from the server, where the rules allow.
    func store(_ response: HTTPResponse) {
        // Only a body as it arrives decoded is kept (the form every request that asks the cache gets).
        guard stores, response.cacheStatus == .network, let url = response.url, !response.isContentCoded || response.decodesContent,
              CacheRules.mayStore(response, requestFields: fields) else { return }
        // Under the key of the URL that answered (after redirects the engine followed).
        let answered = url == requestURL ? key : HTTPCache.key(for: url)
        cache.store(CachedResponse(statusCode: response.statusCode, httpVersion: response.httpVersion, url: url,
                                   headers: response.headers, body: response.body, requestTime: requestTime,
                                   responseTime: responseTime ?? Date(), varying: CacheRules.varying(response, requestFields: fields)),
                    key: answered)
    }
}

/// How an attempt's task is made, the cache asked first (``Transfer``).
enum CachePlan {
    /// Sent to the server as `request` (with the cache's conditions), the ``CacheUse`` kept.
    case network(WireRequest, CacheUse?)
    /// Answered by the cache, with no request sent.
    case answer(CachedResponseTask)
    /// Neither: the request may only be answered from the cache, which cannot.
    case fail(NetworkError)
}
