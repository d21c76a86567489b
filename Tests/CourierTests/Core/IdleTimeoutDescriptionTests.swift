import Courier
import Foundation
import TestSupport
import XCTest

/// A transport's idle timeout says where, on both engines; on URLSession, also which limit and its value.
final class IdleTimeoutDescriptionTests: XCTestCase {
    func testAStalledTransferNamesItsURLAndTheIdleLimit() throws {
        let server = try makeServer()
        let release = Gate()
        addTeardownBlock { release.open() }
        server.route("/stall") { _, writer in
            writer.writeHead(status: 200, headers: [("Content-Length", "100000")])
            writer.write(Data(repeating: 0x61, count: 1_000))
            release.wait(timeout: 60)
        }
        let network = makeNetwork()
        network.interceptors = [OneSecondIdleLimit()]
        let url = server.url("/stall?token=secret")
        let result = network.scheduleSynchronously(Request<Data>(url: url, timeout: 30), timeout: 60)
        guard case let .failure(NetworkError.transport(error)) = result else { return XCTFail("expected the idle timeout, got \(result)") }
        XCTAssertEqual(error.code, .timedOut)
        let text = "\(NetworkError.transport(error))"
        XCTAssertTrue(text.contains("No answer from 127.0.0.1:\(server.port) in time"), text)
        XCTAssertTrue(text.contains("URL: http://127.0.0.1:\(server.port)/stall?token=<redacted>"), text)
        if ProcessInfo.processInfo.environment["COURIER_ENGINE"] == "urlsession" {
            XCTAssertTrue(text.contains("no byte for 1 s, URLSession's idle timeout"), text)
        }
    }
}
