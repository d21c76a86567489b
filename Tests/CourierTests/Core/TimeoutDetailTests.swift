import Courier
import Foundation
import TestSupport
import XCTest

/// A timeout says which deadline passed, its value and the URL.
final class TimeoutDetailTests: XCTestCase {
    /// A route that never answers (until the test ends).
    private func makeSilentServer() throws -> TestServer {
        let server = try makeServer()
        let release = Gate()
        addTeardownBlock { release.open() }
        server.route("/silent") { _, _ in release.wait(timeout: 60) }
        return server
    }

    private func timeout<T>(of result: Result<T, any Error>, file: StaticString = #filePath, line: UInt = #line) -> TimeoutExceeded? {
        guard case let .failure(NetworkError.timedOut(timeout)) = result else {
            XCTFail("expected timedOut, got \(result)", file: file, line: line)
            return nil
        }
        return timeout
    }

    func testTheRequestDeadlineSaysItsValueAndURL() throws {
        let server = try makeSilentServer()
        let url = server.url("/silent?token=secret")
        let result = makeNetwork().scheduleSynchronously(Request<Data>(url: url, timeout: 0.25), timeout: 30)
        let detail = try XCTUnwrap(timeout(of: result))
        XCTAssertEqual(detail.kind, .requestDeadline)
        XCTAssertEqual(detail.seconds, 0.25)
        XCTAssertEqual(detail.url, url)
        guard case let .failure(error) = result else { return }
        let text = "\(error)"
        XCTAssertTrue(text.contains("The request to http://127.0.0.1:\(server.port)/silent?token=<redacted> timed out"), text)
        XCTAssertTrue(text.contains("NetworkRequest.timeout) of 0.25 s"), text)
        XCTAssertFalse(text.contains("secret"))
    }

    func testABlockingCallsTimeoutSaysSo() throws {
        let server = try makeSilentServer()
        let result = makeNetwork().scheduleSynchronously(Request<Data>.get(server.url("/silent")), timeout: 0.2)
        let detail = try XCTUnwrap(timeout(of: result))
        XCTAssertEqual(detail.kind, .blockingCall)
        XCTAssertEqual(detail.seconds, 0.2)
        XCTAssertEqual(detail.url, server.url("/silent"))
        XCTAssertTrue(detail.description.contains("the blocking call's timeout: of 0.2 s passed"), detail.description)
    }

    func testABlockingStreamsTimeoutSaysSo() throws {
        let server = try makeSilentServer()
        let result = makeNetwork().streamSynchronously(Request<Data>.get(server.url("/silent")), timeout: 0.2, onData: { _ in })
        let detail = try XCTUnwrap(timeout(of: result))
        XCTAssertEqual(detail.kind, .blockingCall)
        XCTAssertEqual(detail.url, server.url("/silent"))
    }

    func testTimedOutWithoutAValueStillMakesAndMatchesTheCase() {
        let error: NetworkError = .timedOut
        guard case let .timedOut(detail) = error else { return XCTFail("not the case") }
        XCTAssertEqual(detail.kind, .unspecified)
        XCTAssertEqual("\(error)", "The request timed out.")
        switch error {
        case .timedOut: break
        default: XCTFail("`case .timedOut:` matches whatever the detail")
        }
    }
}
