import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the curl engine takes from a `URLSessionConfiguration` (see Docs/Engines.md for the
/// full list of what each engine honours; `connectionProxyDictionary` is read by ``CurlProxies``),
/// plus its TLS options.
struct CurlSettings: Sendable {
    /// `httpAdditionalHeaders`, sent with every request unless the request sets the same header.
    let additionalHeaders: [(name: String, value: String)]
    /// `timeoutIntervalForRequest`, used as the connect timeout.
    let connectTimeout: TimeInterval
    /// `httpMaximumConnectionsPerHost`.
    let maximumConnectionsPerHost: Int
    /// `httpCookieStorage` when `httpShouldSetCookies` and the accept policy allow cookies.
    private let cookies: CookieJar?
    /// `connectionProxyDictionary`'s HTTP and HTTPS proxies; `nil` leaves libcurl to read the
    /// environment's `http_proxy`, `https_proxy` and `no_proxy`.
    let proxies: CurlProxies?
    let tls: TLSOptions

    init(configuration: URLSessionConfiguration, tls: TLSOptions) {
        additionalHeaders = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }.sorted { $0.name < $1.name }
        connectTimeout = configuration.timeoutIntervalForRequest
        maximumConnectionsPerHost = configuration.httpMaximumConnectionsPerHost
        if configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
           configuration.httpCookieAcceptPolicy != .never {
            cookies = CookieJar(storage: storage)
        } else {
            cookies = nil
        }
        proxies = CurlProxies(configuration.connectionProxyDictionary)
        self.tls = tls
    }

    /// The `Cookie` header the storage has for `request`, if any.
    func cookieHeader(for request: URLRequest) -> String? {
        guard let cookies, let url = request.url else { return nil }
        return cookies.header(for: url)
    }

    /// Stores what a response's `Set-Cookie` headers set.
    func storeCookies(from response: HTTPURLResponse, for url: URL) {
        cookies?.store(from: response, for: url)
    }
}

/// An `HTTPCookieStorage` seen from the curl engine. The storage is documented as thread-safe.
private struct CookieJar: @unchecked Sendable {  // HTTPCookieStorage is thread-safe but not annotated.
    let storage: HTTPCookieStorage

    func header(for url: URL) -> String? {
        guard let cookies = storage.cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    func store(from response: HTTPURLResponse, for url: URL) {
        guard let fields = response.allHeaderFields as? [String: String],
              fields.keys.contains(where: { $0.lowercased() == "set-cookie" }) else { return }
        storage.setCookies(HTTPCookie.cookies(withResponseHeaderFields: fields, for: url), for: url, mainDocumentURL: nil)
    }
}
