import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request type of Courier's own whose `makeURLRequest()` is the protocol's default, so that
/// the core may build its ``WireRequest`` directly, with no `URLRequest` in between. A caller's
/// own type may override `makeURLRequest()` and Swift cannot tell whether it did: such types
/// always go through it.
protocol BuildsWireRequest {
    /// The request as the default `makeURLRequest()` would build it.
    func makeWireRequest() throws -> WireRequest
}

extension BuildsWireRequest {
    /// `request`'s ``makeWireRequest()``, where `request` is of this type (the caller's cast of
    /// its metatype said so). Read where it is: `request as? any BuildsWireRequest` copied the
    /// whole request into an existential box (each of its parts retained) to ask one question.
    static func wireRequest<R>(of request: R) throws -> WireRequest {
        try withUnsafePointer(to: request) { pointer in
            try UnsafeRawPointer(pointer).assumingMemoryBound(to: Self.self).pointee.makeWireRequest()
        }
    }
}

extension NetworkRequest {
    /// The request as the core sends it: built directly where the type is one of Courier's own
    /// (``BuildsWireRequest``), otherwise from its `makeURLRequest()`.
    func wireRequest() throws -> WireRequest {
        if let native = Self.self as? any BuildsWireRequest.Type { return try native.wireRequest(of: self) }
        return try WireRequest(makeURLRequest())
    }

    /// The request built from ``NetworkRequest/makeURL()``, ``NetworkRequest/method``,
    /// ``NetworkRequest/headers``, ``NetworkRequest/authentication`` and ``NetworkRequest/body``:
    /// what the protocol's default `makeURLRequest()` returns (as a `URLRequest`), and what the
    /// core sends for Courier's own types. `order` names the fields to set first, in that order
    /// (``Request/headerOrder``). `checkingURL`: whether the URL is checked here (http(s), a
    /// host, or relative); the core leaves it to ``NetworkCore/prepare(_:)``, which checks it
    /// once the network's defaults have completed it (each check parses the URL again).
    func defaultWireRequest(order: [String] = [], checkingURL: Bool = false) throws -> WireRequest {
        let url: URL
        do {
            url = try makeURL()
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError.invalidURL(String(describing: error))
        }
        if checkingURL { try URLValidation.check(url, allowingRelative: true) }
        // `timeoutInterval` stays URLRequest's default: the idle timeout is the request's
        // `transferOptions` over the network's, which Courier watches itself; a value set on a
        // `URLRequest` (an override, an interceptor) is taken as the idle timeout instead.
        var request = WireRequest(url: url, method: method.rawValue)
        let headers = self.headers
        for wanted in order {
            for (name, value) in headers where HTTPHeaders.namesMatch(name, wanted) {
                try HeaderValidation.check(name: name, value: value)
                request.set(value, for: name)
            }
        }
        for (name, value) in headers {
            try HeaderValidation.check(name: name, value: value)
            request.set(value, for: name)
        }
        if let authentication {
            try HeaderValidation.check(authentication)
            request.set(authentication.headerValue, for: "Authorization")
        }
        if let body {
            // Streamed bodies are uploaded from a file by the transfer, never held here.
            if !body.isStreamed { request.body = try body.encoded() }
            if !request.has("Content-Type"), !body.contentType.isEmpty {
                request.set(body.contentType, for: "Content-Type")
            }
        }
        return request
    }
}

extension Request: BuildsWireRequest {
    func makeWireRequest() throws -> WireRequest {
        try defaultWireRequest(order: headerOrder)
    }
}

extension CodingScopedRequest: BuildsWireRequest {
    func makeWireRequest() throws -> WireRequest {
        try coders.bound { try base.wireRequest() }
    }
}
