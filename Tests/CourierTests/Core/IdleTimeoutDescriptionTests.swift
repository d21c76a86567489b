import Courier
import Foundation
import TestSupport
import XCTest

/// An idle timeout says where, which limit and its value, on both engines.
final class IdleTimeoutDescriptionTests: XCTestCase {
    func testAStalledTransferNamesItsURLAndTheIdleLimit() throws {
        let server = try stallingServer()
        let network = makeNetwork()
        network.interceptors = [OneSecondIdleLimit()]
        let url = server.url("/stall?token=secret")
        let result = network.scheduleSynchronously(Request<Data>(url: url, timeout: 30), timeout: 60)
        guard case let .failure(NetworkError.timedOut(limit)) = result else { return XCTFail("expected the idle timeout, got \(result)") }
        XCTAssertEqual(limit.kind, .idle)
        XCTAssertEqual(limit.seconds, 1)
        let text = "\(NetworkError.timedOut(limit))"
        XCTAssertTrue(text.contains("The request to http://127.0.0.1:\(server.port)/stall?token=<redacted> stalled"), text)
        XCTAssertTrue(text.contains("idle timeout of 1 s"), text)
    }
}
