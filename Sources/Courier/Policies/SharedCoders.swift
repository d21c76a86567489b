import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The JSON coders of the ``Network`` running the current request (``Network/jsonEncoder``,
/// ``Network/jsonDecoder``), for the defaults that need them: `.json` bodies,
/// ``DecodableRequest/decoder``, ``ErrorDecodingRequest/errorDecoder``, `Request.decoding(_:)`.
///
/// They reach those defaults through a value bound to the current thread around the request's
/// own code (``CodingScopedRequest``), because `output(from:response:)` and `makeURLRequest()`
/// take no network argument. Outside a network (a request's method called directly, say in a
/// test) the defaults get fresh coders, as they always did.
///
/// A thread's own value, not a `@TaskLocal`: the code it is bound around is synchronous, so it
/// runs on the binding thread from start to end, and every reader is Courier's own code inside
/// that call. Outside a task, each `TaskLocal.withValue` allocated twice (three of them a
/// request: six of a stubbed request's 37 allocations); this binds with two
/// `pthread_setspecific` calls and allocates nothing. Bindings nest (a request's code may
/// schedule a request on another network, whose body is then built inside it): each restores
/// the one it found.
final class SharedCoders: Sendable {
    let encoder: JSONEncoder
    let decoder: JSONDecoder

    init(encoder: JSONEncoder, decoder: JSONDecoder) {
        self.encoder = encoder
        self.decoder = decoder
    }

    /// The coders bound to the thread while a request's code runs on it.
    private static let slot = ThreadSlot()

    /// The coders bound to the current thread, if a request's code is running on it.
    static var current: SharedCoders? { slot.current(SharedCoders.self) }

    /// Runs `body` with these coders bound to the current thread, then restores what was bound.
    func bound<T>(_ body: () throws -> T) rethrows -> T {
        try Self.slot.binding(self, body)
    }

    /// The running network's encoder, or a fresh one.
    static var encoder: JSONEncoder { current?.encoder ?? JSONEncoder() }
    /// The running network's decoder, or a fresh one.
    static var decoder: JSONDecoder { current?.decoder ?? JSONDecoder() }
}

/// A request run with its network's coders bound (see ``SharedCoders``) while its own code runs:
/// building the `URLRequest` (which encodes the body), validating, producing the output and
/// converting errors. Everything else is the base request's.
///
/// `NetworkCore` wraps every request it is given in one, so the transfers themselves know
/// nothing about coders.
///
/// Its members forward by hand, not through ``ForwardingRequest``'s defaults: this wrapper is on
/// every request's path, and a default reads `base` through the protocol's getter, which copies
/// the whole request each time (about 1,200 instructions a request, measured with callgrind on
/// the stub benchmark, with as many retains and releases again).
struct CodingScopedRequest<Base: NetworkRequest>: NetworkRequest {
    typealias Output = Base.Output

    let base: Base
    let coders: SharedCoders

    /// Inlined: made once a request, where its generic type is already at hand (as a function of
    /// its own, it looked that type up at run time again).
    @inline(__always)
    init(base: Base, coders: SharedCoders) {
        self.base = base
        self.coders = coders
    }

    func makeURL() throws -> URL { try base.makeURL() }
    var method: HTTPMethod { base.method }
    var headers: [String: String] { base.headers }
    var body: RequestBody? { base.body }
    var authentication: Authentication? { base.authentication }
    var timeout: TimeInterval { base.timeout }
    var retryPolicy: RetryPolicy? { base.retryPolicy }
    var rateLimit: RateLimit? { base.rateLimit }
    var transferOptions: TransferOptions { base.transferOptions }
    var acceptedStatusCodes: Set<Int> { base.acceptedStatusCodes }
    var acceptedContentTypes: [String]? { base.acceptedContentTypes }
    var finishingQueue: DispatchQueue { base.finishingQueue }

    func makeURLRequest() throws -> URLRequest {
        try coders.bound { try base.makeURLRequest() }
    }

    func validate(_ response: HTTPResponse) throws {
        try coders.bound { try base.validate(response) }
    }

    func output(from body: Data, response: HTTPResponse) throws -> Output {
        try coders.bound { try base.output(from: body, response: response) }
    }

    func convertError(_ error: NetworkError, response: HTTPResponse?) -> any Error {
        coders.bound { base.convertError(error, response: response) }
    }
}
