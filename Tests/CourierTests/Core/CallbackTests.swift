import Courier
import Foundation
import XCTest

/// The callback API against the loopback server: outputs, what goes on the wire, and where handlers run.
final class CallbackTests: XCTestCase {
    func testOutputsDataStringDecodableAndEmpty() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()

        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/hello")), on: network)?.get(), Data("hello".utf8))
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/hello")).string(), on: network)?.get(), "hello")
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/post")).decoding(Post.self), on: network)?.get(),
                       Post(id: 1, title: "First"))
        XCTAssertEqual(try result(of: GetPost(url: server.url("/post")), on: network)?.get(), Post(id: 1, title: "First"))
        XCTAssertEqual(try result(of: Request<Data>.get(server.url("/empty")).empty(), on: network)?.get(), EmptyResponse())
    }

    func testMethodBodyHeadersAndAuthenticationReachTheServer() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let post = Post(id: 7, title: "Seven")
        let request = Request<Data>(
            method: .post, url: server.url("/echo"), headers: ["X-Custom": "yes"],
            body: .json(post), authentication: .bearer("secret-token")
        ).decoding(Post.self)

        XCTAssertEqual(try result(of: request, on: network)?.get(), post)
        let received = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(received.method, "POST")
        XCTAssertEqual(received.header("Content-Type"), "application/json")
        XCTAssertEqual(received.header("Authorization"), "Bearer secret-token")
        XCTAssertEqual(received.header("x-custom"), "yes")
    }

    func testEveryMethodIsSentAsGiven() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        for method in [HTTPMethod.get, .post, .put, .patch, .delete, .options] {
            let body: RequestBody? = method == .get ? nil : .text("x")
            _ = try result(of: Request<Data>(method: method, url: server.url("/echo"), body: body), on: network)?.get()
            XCTAssertEqual(server.receivedRequests.last?.method, method.rawValue)
        }
        let head = try XCTUnwrap(result(of: Request<Data>(method: .head, url: server.url("/hello")), on: network))
        XCTAssertEqual(try head.get(), Data())
        XCTAssertEqual(server.receivedRequests.last?.method, "HEAD")
    }

    func testFormAndTextBodiesAreLabelled() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        _ = try result(of: Request<Data>(method: .post, url: server.url("/echo"), body: .form([("a", "1 2")])), on: network)?.get()
        XCTAssertEqual(server.receivedRequests.last?.header("Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(server.receivedRequests.last?.body, Data("a=1+2".utf8))
        _ = try result(of: Request<Data>(method: .post, url: server.url("/echo"), body: .text("plain")), on: network)?.get()
        XCTAssertEqual(server.receivedRequests.last?.header("Content-Type"), "text/plain; charset=utf-8")
    }

    func testCompletionRunsOnTheChosenQueue() throws {
        let server = try makeServer().withStandardRoutes()
        let defaultQueue = QueueMarker(DispatchQueue(label: "test.default"))
        let chosenQueue = QueueMarker(DispatchQueue(label: "test.chosen", attributes: .concurrent))
        let network = makeNetwork(callbackQueue: defaultQueue.queue)

        let done = expectation(description: "both")
        done.expectedFulfillmentCount = 2
        network.schedule(Request<Data>.get(server.url("/hello"))) { _ in
            XCTAssertTrue(defaultQueue.isCurrent)
            done.fulfill()
        }
        network.schedule(Request<Data>.get(server.url("/hello")), callbackQueue: chosenQueue.queue) { _ in
            XCTAssertTrue(chosenQueue.isCurrent)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testMainQueueCallbacksAreDelivered() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork(callbackQueue: .main)
        let done = expectation(description: "main")
        network.schedule(Request<Data>.get(server.url("/hello"))) { result in
            XCTAssertTrue(Thread.isMainThread)
            XCTAssertEqual(try? result.get(), Data("hello".utf8))
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testConvenienceMethodsOnTheRequest() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        let request = Request<Data>.get(server.url("/hello")).string()
        let done = expectation(description: "callback")
        request.schedule(on: network) { result in
            XCTAssertEqual(try? result.get(), "hello")
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try request.scheduleSynchronously(on: network).get(), "hello")
    }

    func testTaskStateFollowsTheRequest() throws {
        let server = try makeServer().withStandardRoutes()
        let gate = Gate()
        server.route("/gated") { _, writer in
            gate.wait()
            writer.respond(status: 200, text: "late")
        }
        let network = makeNetwork(limit: 1)
        let done = expectation(description: "done")
        done.expectedFulfillmentCount = 2
        let first = network.schedule(Request<Data>.get(server.url("/gated"))) { _ in done.fulfill() }
        let second = network.schedule(Request<Data>.get(server.url("/hello"))) { _ in done.fulfill() }
        XCTAssertEqual(second.state, .queued)
        XCTAssertNotEqual(first, second)
        gate.open()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(first.state, .finished)
        XCTAssertEqual(second.state, .finished)
        XCTAssertFalse(first.isCancelled)
    }

    func testRequestsOutliveTheNetworkThatScheduledThem() throws {
        let server = try makeServer().withStandardRoutes()
        let done = expectation(description: "completion")
        weak var released: Network?
        do {
            let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test.orphan"))
            released = network
            network.schedule(Request<Data>.get(server.url("/bytes?n=100000"))) { result in
                XCTAssertEqual((try? result.get())?.count, 100_000)
                done.fulfill()
            }
        }
        XCTAssertNil(released, "the Network itself is not kept alive by its requests")
        wait(for: [done], timeout: 10)
    }
}
