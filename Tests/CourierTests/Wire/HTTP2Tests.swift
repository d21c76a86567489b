import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// HTTP/2 on the curl engine, against a real nginx on loopback: negotiated over TLS by ALPN,
/// spoken with prior knowledge over cleartext, multiplexed over one connection.
final class HTTP2Tests: XCTestCase {
    override class func tearDown() {
        NginxFixture.tearDownShared()
        super.tearDown()
    }

    func testHTTPSNegotiatesHTTP2() throws {
        let server = try nginx()
        let network = try wireNetwork(server)
        let page = try fetch(server.tlsURL(NginxServer.helloPath), on: network)
        XCTAssertEqual(page.value, NginxServer.helloBody)
        XCTAssertEqual(page.response.httpVersion, .http2)
        let metrics = try XCTUnwrap(page.response.metrics)
        XCTAssertEqual(metrics.httpVersion, .http2)
        XCTAssertNotNil(metrics.tlsHandshake)
        assertTimelineInOrder(metrics)
        XCTAssertEqual(server.entries(for: NginxServer.helloPath).last?.protocolName, "HTTP/2.0")
    }
}
