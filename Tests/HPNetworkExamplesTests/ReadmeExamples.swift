// The examples of HPNetwork 2.x's README, as its users copied them, with `import HPNetwork`
// changed to `import Courier` and nothing else of the library's names touched. How they were
// transcribed:
// - Where the README leaves the reader a comment to fill in (`// handle result`, `// construct
//   your URL here`), the next line completes it: results go to a closure the test passes in, and
//   URLs point at the loopback server (Loopback.swift) rather than the README's hosts.
// - The statements are the bodies of functions whose parameters are the names they use
//   (`request`, and the handlers that complete them).
// - Examples 1 and 2 both declare `BasicDataRequest`, so each example sits in an enum of its own.
// - The README of the 2.x tag is used where the copy in /work/shared/reference is cut short or
//   still shows the `url: URL?` property 2.x replaced by `makeURL()`.
// On Linux, a file naming `URLResponse` imports FoundationNetworking, as any networking file
// there must, whatever the library.
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Posting Request

enum PostingRequest {
    /// "To submit a request, you can use the singleton:"
    static func singleton<Request: NetworkRequest>(
        _ request: Request,
        handleResult: @escaping @Sendable (Request.Output) -> Void,
        handleError: @escaping @Sendable (Error) -> Void
    ) {
        Network.shared.schedule(request) { result in
            switch result {
            case .success(let output):
                // handle result
                handleResult(output)
            case .failure(let error):
                // handle error
                handleError(error)
            }
        }
    }

    /// "of with the convenience method:"
    static func convenienceMethod<Request: NetworkRequest>(
        _ request: Request,
        handle: @escaping @Sendable (Result<Request.Output, Error>) -> Void
    ) {
        request.schedule { result in
            // Handle result
            handle(result)
        }
    }

    /// "If you want to use a custom queue, you can pass it in the initialiser:"
    static func customQueue() -> (DispatchQueue, Network) {
        let customQueue = DispatchQueue(label: "com.henrikpanhans.CustomQueue", qos: .userInitiated, attributes: .concurrent)
        let network = Network(queue: customQueue)
        return (customQueue, network)
    }

    /// "You can limit the maximum number of concurrent requests to be executed by setting
    /// `Network.shared.maximumConcurrentRequests = 5` for example"
    static func limitConcurrency() {
        Network.shared.maximumConcurrentRequests = 5
    }
}

// MARK: - Progress Callback

enum ProgressCallback {
    /// "You can pass a progress handler block to `Network` like this:"
    @discardableResult
    static func schedule<Request: NetworkRequest>(
        request: Request,
        progressSeen: @escaping @Sendable (Progress) -> Void,
        handle: @escaping @Sendable (Result<Request.Output, Error>) -> Void
    ) -> NetworkTask {
        Network.shared.schedule(request: request) { progress in
            progressSeen(progress)
        } completion: { result in
            // Result handling as usual
            handle(result)
        }
    }
}

// MARK: - Synchronous Requests

enum SynchronousRequests {
    /// "you can use `scheduleSynchronously(...)` which returns the same
    /// `Result<NetworkRequest.Output, Error>` as in the closure of the regular method call."
    static func onNetwork<Request: NetworkRequest>(_ request: Request) -> Result<Request.Output, Error> {
        Network.shared.scheduleSynchronously(request: request)
    }

    /// "There's also a convenience method for `NetworkRequest` directly which you can call by
    /// `request.scheduleSynchronously(...)`"
    static func onRequest<Request: NetworkRequest>(_ request: Request) -> Request.RequestResult {
        request.scheduleSynchronously()
    }
}

// MARK: - Cancelling Requests

enum CancellingRequests {
    /// "Any call to `schedule(request) { result in ... }` returns an instance of `NetworkTask`
    /// that you can cancel by calling `task.cancel()`"
    static func scheduleThenCancel<Request: NetworkRequest>(
        _ request: Request,
        handle: @escaping @Sendable (Result<Request.Output, Error>) -> Void
    ) -> NetworkTask {
        let task = Network.shared.schedule(request) { result in
            handle(result)
        }
        task.cancel()
        return task
    }
}

// MARK: - Creating Requests

enum Example1 {
    struct BasicDataRequest: NetworkRequest {

        typealias Output = Data

        var requestMethod: NetworkRequestMethod {
            .get
        }

        func makeURL() throws -> URL {
            // construct your URL here
            try URLBuilder(host: "127.0.0.1", scheme: "http", port: Loopback.port).addingPathComponent("hello").buildThrowing()
        }

    }
}

enum Example2 {
    struct BasicDataRequest: NetworkRequest {

        typealias Output = Data

        let url: URL?
        let requestMethod: NetworkRequestMethod

        func makeURL() throws -> URL {
            // construct your URL here
            guard let url = url else { throw URLError(.badURL) }
            return url
        }

    }

    static func makeBasicRequest() -> BasicDataRequest {
        let basicRequest = BasicDataRequest(
            url: URL(string: Loopback.url("/hello").absoluteString),
            requestMethod: .get
        )
        return basicRequest
    }
}

enum Example3 {
    struct BasicDecodableRequest<Output: Decodable>: DecodableRequest {

        let requestMethod: NetworkRequestMethod

        var decoder: JSONDecoder {
            JSONDecoder() // use default or custom decoder
        }

        func makeURL() throws -> URL {
            // construct your URL here
            Loopback.url("/profile")
        }

    }
}

// MARK: - Intercepting Errors

/// "If you want to do some custom error conversion based on the raw `Data` that was received, you
/// can implement `func convertError(_ error: Error, data: Data?, response: URLResponse?) -> Error`
/// in your request model."
struct InterceptingRequest: NetworkRequest {
    typealias Output = Data

    let path: String

    var requestMethod: NetworkRequestMethod { .get }

    func makeURL() throws -> URL {
        Loopback.url(path)
    }

    func convertError(_ error: Error, data: Data?, response: URLResponse?) -> Error {
        guard let data = data, let message = try? JSONDecoder().decode(APIMessage.self, from: data) else {
            return error
        }
        return APIFailure(message: message.message, statusCode: (response as? HTTPURLResponse)?.statusCode, underlying: error)
    }
}

/// The error body of the loopback API.
struct APIMessage: Decodable {
    let message: String
}

/// The app's own error, made by `convertError`.
struct APIFailure: Error {
    let message: String
    let statusCode: Int?
    let underlying: Error
}

// MARK: - URLBuilder

enum URLBuilderExample {
    static func weatherURL() throws -> URL {
        try URLBuilder(host: "api.openweathermap.org")
            .addingPathComponent("data")
            .addingPathComponent("2.5")
            .addingPathComponent("onecall")
            .addingQueryItem(name: "lat", value: 48.123123012, digits: 5)
            .addingQueryItem(name: "lon", value: -12.9123001299, digits: 5)
            .addingQueryItem(name: "appid", value: "apiKey")
            .addingQueryItem(name: "units", value: "metric")
            .buildThrowing() // or .build(), which throws in Courier
    }
}

// MARK: - Request Authentication

/// "To add authentication to a request, simply supply a `authentication: NetworkRequestAuthentication?`
/// instance to your request."
struct AuthenticatedRequest: NetworkRequest {
    typealias Output = Data

    let authentication: NetworkRequestAuthentication?
    let marker: String

    var requestMethod: NetworkRequestMethod { .get }

    func makeURL() throws -> URL {
        Loopback.url("/echo?marker=\(marker)")
    }
}

// MARK: - Everything else

/// "Things like `httpBody: Data?` and `headerFields: [NetworkRequestHeaderField]` should be pretty
/// self-explanatory", as the README spells them (HPNetwork 3's non-optional `headerFields`).
struct CreatePostRequest: DecodableRequest {
    typealias Output = Post

    let post: Post
    let marker: String

    var requestMethod: NetworkRequestMethod { .post }

    var httpBody: Data? {
        try? JSONEncoder().encode(post)
    }

    var headerFields: [NetworkRequestHeaderField] {
        [.contentTypeJSON, .acceptJSON, NetworkRequestHeaderField(name: "X-Client", value: "hpnetwork-examples")]
    }

    var authentication: NetworkRequestAuthentication? {
        .bearer(token: "secret-token")
    }

    var decoder: JSONDecoder {
        JSONDecoder()
    }

    func makeURL() throws -> URL {
        Loopback.url("/posts?marker=\(marker)")
    }
}

/// The same members as HPNetwork 2.x's protocol declares them: optional `headerFields`, here
/// stored, with a `PUT` and a body of no declared type.
struct UploadRequest: NetworkRequest {
    typealias Output = Data

    let requestMethod: NetworkRequestMethod
    let httpBody: Data?
    let headerFields: [NetworkRequestHeaderField]?
    let marker: String

    func makeURL() throws -> URL {
        Loopback.url("/echo?marker=\(marker)")
    }
}

/// A model served by the loopback API.
struct Post: Codable, Equatable, Sendable {
    let id: Int
    let title: String
}

/// A model of the kind HPNetwork code decodes: a class, not `Sendable`.
final class Profile: Decodable {
    var name: String
    var languages: [String]
}
