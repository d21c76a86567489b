import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt's request in Courier's own shape, as the core and the engines pass it along:
/// method, URL, the header fields in order, and the body held in memory (a body uploaded from a
/// file travels beside it, see ``TransferBody/uploadsFromFile``). The options the engine is to
/// keep travel beside it too, in one ``TaskOptions`` value.
///
/// Why not `URLRequest`: on Linux every read of one goes through FoundationNetworking's
/// `NSURLRequest` (a copy on write, a dictionary of fields made on each `allHTTPHeaderFields`,
/// names capitalised and values checked on each `setValue`), and the curl engine needs none of
/// it. A `URLRequest` is made from this value only where a caller's code asks for one: an
/// interceptor, an observer, a stub's handler, a request that builds its own
/// (`makeURLRequest()`), and the URLSession engine (``urlRequest``).
struct WireRequest: Sendable {
    /// The parts, shared by the copies until one changes (copy on write): the request is copied
    /// into the transfer's state, its lifecycle, its task and each action, and one reference is
    /// one retain a copy where the parts would be four or five.
    private final class Storage: @unchecked Sendable {
        // @unchecked: changed only through a WireRequest that holds the one reference
        // (`isKnownUniquelyReferenced`), so never while another thread can see it.
        // Unchecked for overlapping access too (as HTTPResponse's storage): each access is one
        // get or one change by the accessors below, none calling out while it lasts.
        @exclusivity(unchecked) var method: String
        @exclusivity(unchecked) var url: URL
        @exclusivity(unchecked) var fields: [(name: String, value: String)]
        @exclusivity(unchecked) var body: Data?
        @exclusivity(unchecked) var cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
        @exclusivity(unchecked) var timeoutInterval: TimeInterval = RequestTimeout.unsetInterval
        @exclusivity(unchecked) var source: URLRequest?
        @exclusivity(unchecked) var edited = false

        init(method: String, url: URL, fields: [(name: String, value: String)]) {
            self.method = method
            self.url = url
            self.fields = fields
        }

        func copy() -> Storage {
            let copy = Storage(method: method, url: url, fields: fields)
            copy.body = body
            copy.cachePolicy = cachePolicy
            copy.timeoutInterval = timeoutInterval
            copy.source = source
            copy.edited = edited
            return copy
        }
    }

    private var storage: Storage

    /// The parts, to be changed: this request's own from now on. Whatever changes marks the
    /// request as no longer the `URLRequest` it came from (``urlRequest`` then rebuilds it).
    private mutating func changing() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.edited = true
        return storage
    }

    /// The method as it goes on the wire (`GET`, `POST`, …).
    var method: String {
        get { storage.method }
        set { changing().method = newValue }
    }
    /// An absolute http(s) URL once the request is prepared.
    var url: URL {
        get { storage.url }
        set { changing().url = newValue }
    }
    /// The header fields in the order they were set, at most one per name (ignoring case), each
    /// name in the form FoundationNetworking gives it (``canonicalName(_:)``), so that both
    /// engines send the same names.
    var fields: [(name: String, value: String)] { storage.fields }
    /// The body held in memory, if any.
    var body: Data? {
        get { storage.body }
        set { changing().body = newValue }
    }
    /// A `URLRequest`'s own cache policy, where the request came from one.
    var cachePolicy: URLRequest.CachePolicy {
        get { storage.cachePolicy }
        set { changing().cachePolicy = newValue }
    }
    /// A `URLRequest`'s own `timeoutInterval` (``RequestTimeout/unsetInterval`` when nobody set
    /// one): the attempt's idle timeout where it was set (``RequestTimeout/idleTimeout(of:)``).
    var timeoutInterval: TimeInterval {
        get { storage.timeoutInterval }
        set { changing().timeoutInterval = newValue }
    }
    /// Where the request came from a `URLRequest` (made by a caller's code), that request, with
    /// what this value does not model (`httpShouldHandleCookies`, a body stream, …): the
    /// ``urlRequest`` made from this value keeps it.
    var source: URLRequest? { storage.source }

    /// A `GET` of `url` without fields or body.
    init(url: URL, method: String = "GET") {
        storage = Storage(method: method, url: url, fields: [])
    }

    /// Whether the body is a stream a caller's `URLRequest` carries (`httpBodyStream`).
    var hasBodyStream: Bool { source?.httpBodyStream != nil }

    /// The value of `name`'s field (ignoring case), if set.
    func value(for name: String) -> String? {
        fields.first { HTTPHeaders.namesMatch($0.name, name) }?.value
    }

    /// Whether a field named `name` (ignoring case) is set.
    func has(_ name: String) -> Bool {
        fields.contains { HTTPHeaders.namesMatch($0.name, name) }
    }

    /// Adds a field the request does not have yet, its name in canonical form already (the
    /// core's own names, such as `User-Agent`): no search, no change of form.
    mutating func appendNew(name: String, value: String) {
        changing().fields.append((name, value))
    }

    /// Sets `name`'s field to `value` in the place it had, or last; `nil` removes it. The value
    /// is taken as it is: callers check what a user gave (``HeaderValidation``).
    mutating func set(_ value: String?, for name: String) {
        guard let index = fields.firstIndex(where: { HTTPHeaders.namesMatch($0.name, name) }) else {
            if let value { changing().fields.append((Self.canonicalName(name), value)) }
            return
        }
        if let value {
            changing().fields[index].value = value
        } else {
            changing().fields.remove(at: index)
        }
    }

    /// The name FoundationNetworking's `setValue(_:forHTTPHeaderField:)` stores: each letter
    /// upper-cased after anything but a letter, lower-cased after a letter (`x-api-key` is
    /// `X-Api-Key`). Done here for the names made of letters, digits and `-_.!#$%&*+|~` (every
    /// name seen in practice), measured identical to FoundationNetworking's on 20,000 random
    /// names; for the rare others (`'`, `` ` ``, `^`, whose rule differs) Foundation decides.
    static func canonicalName(_ name: String) -> String {
        var changes = false
        var afterLetter = false
        for byte in name.utf8 {
            let upper = byte >= 0x41 && byte <= 0x5A
            let lower = byte >= 0x61 && byte <= 0x7A
            if byte == 0x27 || byte == 0x60 || byte == 0x5E || byte >= 0x80 { return foundationName(name) }
            if (afterLetter && upper) || (!afterLetter && lower) { changes = true }
            afterLetter = upper || lower
        }
        guard changes else { return name }
        var bytes = [UInt8]()
        bytes.reserveCapacity(name.utf8.count)
        afterLetter = false
        for byte in name.utf8 {
            let upper = byte >= 0x41 && byte <= 0x5A
            let lower = byte >= 0x61 && byte <= 0x7A
            bytes.append(afterLetter && upper ? byte + 0x20 : !afterLetter && lower ? byte - 0x20 : byte)
            afterLetter = upper || lower
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func foundationName(_ name: String) -> String {
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.setValue("x", forHTTPHeaderField: name)
        return request.allHTTPHeaderFields?.keys.first ?? name
    }
}

extension WireRequest {
    /// The request a caller's code built (an overridden `makeURLRequest`, an interceptor), as the
    /// core carries it; its fields in the dictionary's order. `nil` URL: ``NetworkError/invalidURL(_:)``.
    init(_ request: URLRequest) throws(NetworkError) {
        guard let url = request.url else { throw .invalidURL("the request has no URL") }
        storage = Storage(method: request.httpMethod ?? "GET", url: url,
                          fields: (request.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) })
        storage.body = request.httpBody
        storage.cachePolicy = request.cachePolicy
        storage.timeoutInterval = request.timeoutInterval
        storage.source = request
    }

    /// This request as a `URLRequest`, for a caller's code and the URLSession engine.
    var urlRequest: URLRequest {
        if let source, !storage.edited { return source }
        var request = source ?? URLRequest(url: url, cachePolicy: cachePolicy, timeoutInterval: timeoutInterval)
        if source != nil {
            request.url = url
            request.cachePolicy = cachePolicy
            request.timeoutInterval = timeoutInterval
        }
        if method != (request.httpMethod ?? "GET") { request.httpMethod = method }
        // The names are in FoundationNetworking's form already: the dictionary is taken as it is.
        if !fields.isEmpty || source != nil {
            var dictionary = [String: String](minimumCapacity: fields.count)
            for field in fields { dictionary[field.name] = field.value }
            request.allHTTPHeaderFields = dictionary
        }
        if body != nil || source?.httpBody != nil { request.httpBody = body }
        return request
    }
}
