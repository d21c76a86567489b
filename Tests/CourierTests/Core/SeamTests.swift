@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What crosses the seam between the transfer and the engines: each engine's own classification
/// of its failures (``TransportOutcome``), and the limits a task is given (``TransportLimits``).
/// The behaviour end to end, on a real server and both engines, is in the suites of each error.
final class SeamTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1:8080/x")!

    func testATransportTimeoutIsATransportErrorOnBothEnginesNeverTheDeadline() {
        guard case let .transport(curl) = CurlFailure(code: 28, detail: "Operation timed out after 1000 milliseconds with 0 bytes received",
                                                      url: url).networkError else {
            return XCTFail("curl's 28 is a transport error")
        }
        XCTAssertEqual(curl.code, .timedOut)
        XCTAssertEqual(curl.curlCode, 28, "kept for the CLI's exit code")
        guard case let .failed(.transport(session)) = URLSessionFailure.outcome(of: URLError(.timedOut), headReceived: true) else {
            return XCTFail("URLSession's idle timeout is a transport error")
        }
        XCTAssertEqual(session.code, .timedOut)
        XCTAssertNil(session.curlCode)
        // The deadline is final; the transport's timeout is retried like any transport failure.
        let policy = RetryPolicy(maxAttempts: 3)
        XCTAssertNil(policy.delay(afterAttempt: 1, method: .get, error: .timedOut))
        XCTAssertNotNil(policy.delay(afterAttempt: 1, method: .get, error: .transport(session)))
    }

    func testOutOfMemoryBeforeAHeadIsAnOversizedLineOnBothEnginesAndAfterItATransportError() {
        // libcurl's code for a head line too long: 27 before 8.6, 100 from it.
        for code: Int32 in [27, 100] {
            XCTAssertEqual(CurlFailure(code: code, detail: "Out of memory", url: url).networkError.oversizedHead, .line, "\(code)")
            guard case .transport = CurlFailure(code: code, detail: "Out of memory", url: url, headReceived: true).networkError else {
                return XCTFail("\(code) after the head")
            }
        }
        let outOfMemory = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "Out of memory"])
        guard case let .failed(before) = URLSessionFailure.outcome(of: outOfMemory, headReceived: false),
              case let .failed(after) = URLSessionFailure.outcome(of: outOfMemory, headReceived: true) else {
            return XCTFail("a failure is a failure")
        }
        XCTAssertEqual(before.oversizedHead, .line)
        guard case .transport = after else { return XCTFail("after the head: \(after)") }
        guard case .completed = URLSessionFailure.outcome(of: nil, headReceived: true) else { return XCTFail("no error, completed") }
    }

    func testAnAttemptsTimeoutIntervalIsItsIdleTimeoutOnlyWhereSomeoneSetIt() throws {
        func idle(_ interval: TimeInterval) -> TimeInterval? {
            var request = URLRequest(url: url)
            request.timeoutInterval = interval
            return RequestTimeout.options(request: TransferOptions(idleTimeout: 7), network: TransferOptions(idleTimeout: 9),
                                          rateLimit: nil, wireRequest: try! WireRequest(request)).idleTimeout
        }
        XCTAssertEqual(idle(61), 61)
        XCTAssertEqual(idle(0.3), 0.3, "fractions are kept: Courier watches the timeout itself")
        for meaningless in [0, -1, .nan, .infinity] { XCTAssertEqual(idle(meaningless), 7, "\(meaningless): the request's own") }
        XCTAssertEqual(idle(60), 7, "URLRequest's default means nobody set it")
        // The request Courier builds leaves the field alone, whatever its deadline.
        XCTAssertEqual(try Request<Data>(url: url, timeout: 0.3).makeURLRequest().timeoutInterval, RequestTimeout.unsetInterval)
        let none = RequestTimeout.options(request: TransferOptions(idleTimeout: .infinity), network: TransferOptions(idleTimeout: 9),
                                          rateLimit: nil, wireRequest: WireRequest(url: url))
        XCTAssertNil(none.idleTimeout, ".infinity is none, over the network's")
        let inherited = RequestTimeout.options(request: TransferOptions(), network: TransferOptions(idleTimeout: 9, connectTimeout: 2),
                                               rateLimit: nil, wireRequest: WireRequest(url: url))
        XCTAssertEqual(inherited, TaskOptions(idleTimeout: 9, connectTimeout: 2))
        XCTAssertEqual(TaskOptions.backstop(for: 0.3), 2, "an engine's backstop: whole seconds, a second later")
        XCTAssertEqual(TaskOptions.backstop(for: 1e300), RequestTimeout.transportLimit)
    }
}
