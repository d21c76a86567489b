import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Values a ``Network`` adds to every request: a base URL for relative ones, default headers and
/// default query items. Change them at any time from any thread (``Network/defaults``), e.g. to
/// add a token after sign-in; requests scheduled afterwards use the new values.
public struct NetworkDefaults: Sendable, Hashable {
    /// Resolves requests whose URL is relative (`Request<Data>.get("users/1")`): the relative
    /// path is appended to the base URL's path (`https://api.example.com/v1` + `users/1` gives
    /// `https://api.example.com/v1/users/1`; a leading `/` changes nothing), and its query kept.
    public var baseURL: URL?
    /// Headers added to every request that does not set the same header itself. A bad name or
    /// value fails each request with ``NetworkError/invalidRequest(_:)``, as in
    /// ``NetworkRequest/headers``.
    public var headers: [String: String]
    /// Query items added to every request whose URL has no item of the same name.
    public var queryItems: [URLQueryItem]

    /// Creates defaults; all empty unless given.
    public init(baseURL: URL? = nil, headers: [String: String] = [:], queryItems: [URLQueryItem] = []) {
        self.baseURL = baseURL
        self.headers = headers
        self.queryItems = queryItems
    }

    /// Completes `request` with these defaults; the request's own values always win. `scheme` is
    /// its URL's (read by the caller, who needs it again: each read parses the URL). Returns
    /// whether the URL changed (a relative one resolved, query items added).
    func apply(to request: inout WireRequest, scheme: String?) throws -> Bool {
        var changed = false
        if scheme == nil {
            // A scheme-less URL with a host (`//host/path`) is refused, not resolved against the
            // base: what `makeURLRequest()` checks (the core checks absolute URLs once, after this).
            try URLValidation.check(request.url, scheme: nil, allowingRelative: true)
            guard let baseURL else {
                throw NetworkError.invalidURL("\(Redaction.standard.redact(urlString: request.url.relativeString)): a relative URL needs a base URL (Network.defaults.baseURL)")
            }
            request.url = try Self.resolve(request.url, against: baseURL)
            changed = true
        }
        for (name, value) in headers where !request.has(name) {
            try HeaderValidation.check(name: name, value: value)
            request.set(value, for: name)
        }
        if !queryItems.isEmpty, var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true) {
            var items = components.queryItems ?? []
            let present = Set(items.map(\.name))
            items += queryItems.filter { !present.contains($0.name) }
            components.queryItems = items
            if let url = components.url {
                request.url = url
                changed = true
            }
        }
        return changed
    }

    private static func resolve(_ relative: URL, against base: URL) throws -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true),
              let relativeParts = URLComponents(string: relative.relativeString) else {
            throw NetworkError.invalidURL(Redaction.standard.redact(urlString: relative.relativeString))
        }
        let basePath = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let addedPath = relativeParts.percentEncodedPath.drop { $0 == "/" }
        components.percentEncodedPath = basePath + "/" + addedPath
        if let query = relativeParts.percentEncodedQuery { components.percentEncodedQuery = query }
        guard let url = components.url else { throw NetworkError.invalidURL(Redaction.standard.redact(urlString: relative.relativeString)) }
        return url
    }
}
