import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// ``Request/headerOrder``: the fields it names go first, in its order, on the curl engine; the
/// rest follow. (URLSession sends its fields in an order of its own.)
final class HeaderOrderTests: XCTestCase {
    private func customNames(_ request: ServerRequest) -> [String] {
        request.headers.map(\.name).filter { $0.lowercased().hasPrefix("x-") }
    }

    func testTheNamedFieldsGoFirstInTheirOrderThenTheRest() throws {
        let server = try makeServer().withStandardRoutes()
        let network = makeNetwork()
        var request = Request<Data>.get(server.url("/hello"), headers: ["x-a": "1", "X-B": "2", "X-C": "3", "X-D": "4"])
        request.headerOrder = ["X-C", "X-A", "x-b"]
        XCTAssertNoThrow(try result(of: request, on: network)?.get())
        let sent = try XCTUnwrap(server.receivedRequests.last)
        XCTAssertEqual(Set(customNames(sent)), ["X-A", "X-B", "X-C", "X-D"], "every field goes, each once")
        guard network.engine == .curl else { return }
        XCTAssertEqual(customNames(sent), ["X-C", "X-A", "X-B", "X-D"])
        // Kept through `map`, and a name not among the fields changes nothing.
        var mapped = request.map { $0.count }
        mapped.headerOrder.insert("X-Missing", at: 0)
        XCTAssertNoThrow(try result(of: mapped, on: network)?.get())
        XCTAssertEqual(customNames(try XCTUnwrap(server.receivedRequests.last)), ["X-C", "X-A", "X-B", "X-D"])
    }
}
