import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Observers see every redirect an attempt follows (`didRedirect`), and the request that
/// follows it (`willSend`), whether URLSession or Courier itself (307/308 with a body) follows it.
final class RedirectObserverTests: XCTestCase {
    /// Records events as short strings, in order.
    private struct Recorder: NetworkObserver {
        let events: Box<[String]>
        func willSend(_ request: URLRequest, context: RequestContext) {
            events.mutate { $0?.append("send \(request.httpMethod ?? "?") \(request.url?.path ?? "?") #\(context.attempt)") }
        }
        func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
            events.mutate { $0?.append("redirect \(response.statusCode) \(response.url?.path ?? "?") → \(request.url?.path ?? "?")") }
        }
        func didReceive(_ response: HTTPResponse, context: RequestContext) {
            events.mutate { $0?.append("receive \(response.statusCode) \(response.url?.path ?? "?")") }
        }
    }

    func testEveryFollowedRedirectIsReportedWithTheRequestThatFollows() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/one") { _, writer in writer.respond(status: 302, headers: ["Location": "/two"]) }
        server.route("/two") { _, writer in writer.respond(status: 301, headers: ["Location": "/hello"]) }
        let events = Box<[String]>([])
        let network = makeNetwork()
        network.observers = [Recorder(events: events)]

        let body = try result(of: Request<Data>.get(server.url("/one")), on: network)?.get()

        XCTAssertEqual(body, Data("hello".utf8))
        XCTAssertEqual(events.value, [
            "send GET /one #1",
            "redirect 302 /one → /two", "send GET /two #1",
            "redirect 301 /two → /hello", "send GET /hello #1",
            "receive 200 /hello",
        ])
    }

    func testA307ThatCourierRepeatsWithItsBodyIsReportedOnce() throws {
        let server = try makeServer().withStandardRoutes()
        server.route("/moved") { _, writer in writer.respond(status: 307, headers: ["Location": "/echo"]) }
        let events = Box<[String]>([])
        let network = makeNetwork()
        network.observers = [Recorder(events: events)]

        let body = try result(of: Request<Data>(method: .post, url: server.url("/moved"), body: .data(Data("x=1".utf8), contentType: "text/plain")),
                              on: network)?.get()

        XCTAssertEqual(body, Data("x=1".utf8))
        XCTAssertEqual(events.value, [
            "send POST /moved #1",
            "redirect 307 /moved → /echo", "send POST /echo #1",
            "receive 200 /echo",
        ])
    }

    func testARedirectPastTheLimitIsTheResponseNotARedirect() throws {
        let server = try makeServer()
        server.route("/loop") { _, writer in writer.respond(status: 302, headers: ["Location": "/loop"]) }
        let events = Box<[String]>([])
        let network = makeNetwork()
        network.maximumRedirects = 1
        network.observers = [Recorder(events: events)]

        guard case .tooManyRedirects? = networkError(result(of: Request<Data>.get(server.url("/loop")), on: network)) else {
            return XCTFail("expected tooManyRedirects")
        }
        XCTAssertEqual(events.value, ["send GET /loop #1", "redirect 302 /loop → /loop", "send GET /loop #1", "receive 302 /loop"])
    }
}
