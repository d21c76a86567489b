import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The background revalidation of a stored response answered stale within its
/// `stale-while-revalidate` window (RFC 5861): the answered request's own `URLRequest` (as built,
/// before interceptors, which adapt this one too), asking the server about what is stored, so that
/// the next request finds it fresh. Its outcome is the cache's alone: nobody waits for it.
struct CacheRefresh: NetworkRequest {
    typealias Output = Data
    let request: WireRequest

    var transferOptions: TransferOptions { TransferOptions(cachePolicy: .reloadRevalidatingCacheData) }

    func makeURL() throws -> URL {
        request.url
    }

    func makeURLRequest() throws -> URLRequest { request.urlRequest }

    func output(from body: Data, response: HTTPResponse) throws -> Data { body }
}

extension CacheRefresh: BuildsWireRequest {
    func makeWireRequest() throws -> WireRequest { request }
}
