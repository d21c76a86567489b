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

    func testTheIdleLimitIsTheRequestsTimeoutIntervalInMillisecondsWithinTheBackstop() {
        func limit(_ interval: TimeInterval) -> Int? {
            var request = URLRequest(url: url)
            request.timeoutInterval = interval
            return RequestTimeout.limits(for: request).idleMilliseconds
        }
        XCTAssertEqual(limit(61), 61_000)
        XCTAssertEqual(limit(0.3), 300, "milliseconds: the curl engine keeps them; URLSession rounds up to whole seconds itself")
        let week = Int(RequestTimeout.transportLimit * 1000)
        for meaningless in [0, -1, .nan, .infinity, 1e300] { XCTAssertEqual(limit(meaningless), week, "\(meaningless)") }
        // The request Courier builds carries its deadline rounded up plus a second (the backstop).
        XCTAssertEqual(RequestTimeout.limits(for: try Request<Data>(url: url, timeout: 0.3).makeURLRequest()).idleMilliseconds, 2_000)
    }
}
