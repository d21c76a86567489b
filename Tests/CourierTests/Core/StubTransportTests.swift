import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `Network(stub:)`: Courier's whole pipeline, minus the network.
final class StubTransportTests: XCTestCase {
    private func stubNetwork(limit: Int = 6, _ respond: @escaping @Sendable (URLRequest) -> StubResponse) -> Network {
        let network = Network(stub: respond, callbackQueue: DispatchQueue(label: "test.stub"), maximumConcurrentRequests: limit)
        addTeardownBlock { network.cancelAll() }
        return network
    }

    func testAnswersGoThroughValidationAndDecoding() throws {
        let network = stubNetwork { request in
            switch request.url?.path {
            case "/post": return StubResponse(headers: ["Content-Type": "application/json"], body: Data(#"{"id":3,"title":"Stub"}"#.utf8))
            case "/echo": return StubResponse(body: request.httpBody ?? Data())
            default: return StubResponse(statusCode: 404, body: Data("nope".utf8))
            }
        }
        XCTAssertEqual(try result(of: GetPost(url: URL(string: "http://stub.test/post")!), on: network)?.get(), Post(id: 3, title: "Stub"))
        XCTAssertEqual(try result(of: Request<Data>(method: .post, url: URL(string: "http://stub.test/echo")!, body: .text("hi")).string(), on: network)?.get(), "hi")
        guard case let .httpStatus(response)? = networkError(result(of: Request<Data>.get("http://stub.test/missing"), on: network)) else {
            return XCTFail("expected httpStatus")
        }
        XCTAssertEqual(response.text, "nope")
        XCTAssertEqual(response.headers["Content-Length"], "4")
    }

    func testEveryConventionWorksOverTheStub() async throws {
        let network = stubNetwork { _ in StubResponse(body: Data("ok".utf8)) }
        let request = Request<Data>.get("http://stub.test/").string()
        let viaAsync = try await network.response(for: request)
        let viaBlocking = try network.scheduleSynchronously(request, timeout: 10).get()
        XCTAssertEqual([viaAsync, viaBlocking], ["ok", "ok"])
    }

    func testExactlyOnceAndTheLimitHoldWithoutANetwork() throws {
        let network = stubNetwork(limit: 3) { _ in
            // Answers run one at a time on the delegate queue; the limit is checked in ConcurrencyLimitTests.
            StubResponse(body: Data("x".utf8))
        }
        let counter = CompletionCounter()
        let wrongOutcomes = Box<[Int]>([])
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 2000
        for id in 0..<2000 {
            let cancelled = id % 3 == 0
            let task = network.schedule(Request<Data>.get("http://stub.test/\(id)")) { result in
                let succeeded = (try? result.get()) != nil
                // A cancel may lose the race against a stub this fast, but nothing else may fail.
                if !succeeded, !cancelled { wrongOutcomes.mutate { $0?.append(id) } }
                counter.record(id, outcome: succeeded ? "success" : "failure")
                done.fulfill()
            }
            if cancelled { task.cancel() }
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(counter.total, 2000)
        XCTAssertEqual(counter.duplicated, [])
        XCTAssertEqual(wrongOutcomes.value, [])
        XCTAssertGreaterThan(counter.byOutcome["failure", default: 0], 0)
    }
}
