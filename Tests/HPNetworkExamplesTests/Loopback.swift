import Foundation
import TestSupport

/// The loopback server the examples talk to: one for the whole target, started on first use, so
/// that the README's request types can name their URLs the way HPNetwork users did (from
/// `makeURL()`, with nothing passed in). Each test tells its own requests apart with a `marker`
/// query item, or uses a route of its own.
enum Loopback {
    static let server: TestServer = {
        do {
            let server = try TestServer()
            installRoutes(on: server)
            return server
        } catch {
            fatalError("the loopback server could not start: \(error)")
        }
    }()

    static var port: Int { server.port }

    static func url(_ pathAndQuery: String) -> URL { server.url(pathAndQuery) }

    /// The requests the server received with `marker=<marker>` in their query, in order.
    static func requests(marked marker: String) -> [ServerRequest] {
        server.receivedRequests.filter { $0.queryItems["marker"] == marker }
    }

    private static func installRoutes(on server: TestServer) {
        server.route("/hello") { _, writer in
            writer.respond(status: 200, headers: ["Content-Type": "text/plain"], text: "hello")
        }
        server.route("/profile") { _, writer in
            writer.respond(json: #"{"name":"Ada","languages":["Swift","C"]}"#)
        }
        server.route("/post") { _, writer in
            writer.respond(json: #"{"id":1,"title":"First"}"#)
        }
        // Answers with the body it was sent, as the created post.
        server.route("/posts") { request, writer in
            writer.respond(status: 201, headers: ["Content-Type": "application/json"], body: request.body)
        }
        server.route("/echo") { request, writer in
            writer.respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
        }
        server.route("/missing") { _, writer in
            writer.respond(json: #"{"message":"no such post"}"#, status: 404)
        }
        server.route("/missing-plain") { _, writer in
            writer.respond(status: 404, text: "not found")
        }
        server.route("/bytes") { request, writer in
            let count = Int(request.queryItems["n"] ?? "") ?? 1024
            writer.respond(status: 200, headers: ["Content-Type": "application/octet-stream"],
                           body: Data(repeating: 0x61, count: count))
        }
    }
}
