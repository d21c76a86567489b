import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The policy's arithmetic, without a network.
final class RetryPolicyTests: XCTestCase {
    private let status503 = NetworkError.httpStatus(HTTPResponse(statusCode: 503))
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    func testMaxAttemptsCountsEveryAttemptExactly() {
        let policy = RetryPolicy(maxAttempts: 3)
        XCTAssertNotNil(policy.delay(afterAttempt: 1, method: .get, error: status503))
        XCTAssertNotNil(policy.delay(afterAttempt: 2, method: .get, error: status503))
        XCTAssertNil(policy.delay(afterAttempt: 3, method: .get, error: status503), "3 attempts in all, not 2 and not 4")
        XCTAssertNil(RetryPolicy.none.delay(afterAttempt: 1, method: .get, error: status503))
        XCTAssertEqual(RetryPolicy(maxAttempts: 0).maxAttempts, 1)
    }

    func testBackoffIsFullJitterUnderAnExponentialCap() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 0.5, maximumDelay: 3)
        for attempt in 1...9 {
            let cap = min(3, 0.5 * pow(2, Double(attempt - 1)))
            let delays = (0..<200).compactMap { _ in policy.delay(afterAttempt: attempt, method: .get, error: status503) }
            XCTAssertEqual(delays.count, 200)
            XCTAssertTrue(delays.allSatisfy { $0 >= 0 && $0 <= cap }, "attempt \(attempt): \(delays.max() ?? -1) > \(cap)")
            XCTAssertGreaterThan(Set(delays).count, 100, "jittered, not fixed")
        }
    }

    func testOnlyIdempotentMethodsUnlessAllowed() {
        XCTAssertNil(RetryPolicy().delay(afterAttempt: 1, method: .post, error: status503))
        XCTAssertNil(RetryPolicy().delay(afterAttempt: 1, method: .patch, error: status503))
        XCTAssertNotNil(RetryPolicy().delay(afterAttempt: 1, method: .put, error: status503))
        XCTAssertNotNil(RetryPolicy(retriesNonIdempotentRequests: true).delay(afterAttempt: 1, method: .post, error: status503))
    }

    func testWhichFailuresAreRetried() {
        let policy = RetryPolicy()
        for code in [-1, -1001, -1003, -1004, -1005, -1006, -1009] {
            XCTAssertNotNil(policy.delay(afterAttempt: 1, method: .get, error: .transport(URLError(URLError.Code(rawValue: code)!))), "\(code)")
        }
        for status in [408, 429, 500, 502, 503, 504] {
            XCTAssertNotNil(policy.delay(afterAttempt: 1, method: .get, error: .httpStatus(HTTPResponse(statusCode: status))), "\(status)")
        }
        for error: NetworkError in [.httpStatus(HTTPResponse(statusCode: 404)), .httpStatus(HTTPResponse(statusCode: 501)),
                                    .transport(URLError(.badURL)), .cancelled, .invalidURL("x"),
                                    .decodingFailed(CocoaError(.coderInvalidValue), HTTPResponse(statusCode: 200))] {
            XCTAssertNil(policy.delay(afterAttempt: 1, method: .get, error: error), "\(error)")
        }
    }

    func testRetryAfterInSecondsAndAsAnHTTPDateIsHonouredUpToTheCap() {
        let policy = RetryPolicy(maximumRetryAfter: 60)
        func after(_ value: String) -> TimeInterval? {
            policy.delay(afterAttempt: 1, method: .get,
                         error: .httpStatus(HTTPResponse(statusCode: 429, headers: ["Retry-After": value])), now: now)
        }
        XCTAssertEqual(after("7"), 7)
        XCTAssertEqual(after("0"), 0)
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        XCTAssertEqual(after("Tue, 14 Nov 2023 22:13:50 GMT"), 30)
        XCTAssertEqual(after("Tue, 14 Nov 2023 22:00:00 GMT"), 0, "a date in the past means now")
        XCTAssertNil(after("3600"), "longer than the cap: report the response instead of waiting")
        XCTAssertNotNil(after("soon"), "unreadable: ordinary backoff")
    }
}
