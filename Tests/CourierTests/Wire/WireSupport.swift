import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension XCTestCase {
    /// The running class's nginx (see ``NginxFixture``).
    func nginx() throws -> NginxServer {
        try NginxFixture.shared()
    }

    /// A curl-engine network that trusts nginx's certificate, with `connection` options and room
    /// for `limit` requests at once.
    func wireNetwork(_ server: NginxServer, connection: ConnectionOptions = ConnectionOptions(), limit: Int = 6,
                     configuration: URLSessionConfiguration = .ephemeral) throws -> Network {
        let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "test.callbacks"),
                              maximumConcurrentRequests: limit, engine: .curl,
                              tls: TLSOptions(certificateAuthorities: server.certificates.authority), connection: connection)
        network.retryPolicy = .none
        addTeardownBlock { network.cancelAll() }
        guard network.engine == .curl else { throw XCTSkip("the curl engine cannot be used here") }
        return network
    }

    /// The response of `url` (its body as text), with its head and metrics.
    func fetch(_ url: URL, on network: Network, file: StaticString = #filePath, line: UInt = #line) throws -> Response<String> {
        let outcome = result(of: Request<Data>.get(url).string().withResponse(), on: network, file: file, line: line)
        return try XCTUnwrap(outcome, "no completion", file: file, line: line).get()
    }

    /// The access-log entries for `uri` once there are `count` of them (nginx writes a line just
    /// after the response went out, so a client can see the response first): waits, bounded.
    func logged(_ server: NginxServer, _ uri: String, count: Int = 1, file: StaticString = #filePath,
                line: UInt = #line) -> [NginxServer.LogEntry] {
        if !waitUntil(timeout: 10, { server.entries(for: uri).count >= count }) {
            XCTFail("nginx logged \(server.entries(for: uri).count) requests for \(uri), not \(count)", file: file, line: line)
        }
        return server.entries(for: uri)
    }

    /// Asserts that the known phase times never decrease in curl's order, and end with `total`.
    func assertTimelineInOrder(_ metrics: TransferMetrics?, file: StaticString = #filePath, line: UInt = #line) {
        guard let metrics else { return XCTFail("no metrics", file: file, line: line) }
        let times = metrics.timeline.map(\.seconds)
        XCTAssertEqual(metrics.timeline.last?.name, "time_total", file: file, line: line)
        XCTAssertEqual(times, times.sorted(), "\(metrics.timeline)", file: file, line: line)
        XCTAssertTrue(times.allSatisfy { $0 > 0 }, "\(metrics.timeline)", file: file, line: line)
    }
}
