@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Each libcurl version's words for the same failure mean the same `NetworkError` (the messages
/// as scripts/libcurl-matrix met them on 7.74.0 and 8.14.1, and as curl's sources have them).
final class LibcurlWordingTests: XCTestCase {
    private let url = URL(string: "https://127.0.0.1:8443/x")!

    /// What the curl engine reports for `code` with libcurl's `message` (after a head, so that
    /// only the message and code decide; the head-size cases have tests of their own).
    private func curlEngine(_ code: Int32, _ message: String) -> NetworkError {
        CurlFailure(code: code, detail: message, url: url, headReceived: true).networkError
    }

    /// What the URLSession engine reports: FoundationNetworking's `-1` with libcurl's message.
    private func urlSession(_ message: String) -> NetworkError {
        URLSessionFailure.classify(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message, NSURLErrorFailingURLErrorKey: url]))
    }

    func testABodyCutShortIsIncompleteInEveryWording() {
        for message in ["transfer closed with 7 bytes remaining to read", "end of response with 7 bytes missing"] {
            guard case .incompleteBody = urlSession(message) else { return XCTFail("URLSession: \(message)") }
            guard case .incompleteBody = curlEngine(56, message) else { return XCTFail("curl: \(message)") }
        }
    }

    func testABadStatusLineOrChunkIsInvalidInEveryWording() {
        let replies: [(code: Int32, message: String)] = [
            (1, "Unsupported HTTP version in response"),                  // 7.x
            (1, "Unsupported HTTP/1 subversion in response"),             // 8.0+
            (56, "Illegal or missing hexadecimal sequence in chunked-encoding"),
            (56, "chunk hex-length char not a hex digit: 0x7a"),          // 8.6+
            (56, "invalid chunk size: 'zz'"),
        ]
        for (code, message) in replies {
            guard case .invalidResponse(message) = curlEngine(code, message) else {
                return XCTFail("curl \(code): \(message) is \(curlEngine(code, message))")
            }
        }
    }

    func testARefusedTunnelIsNamedInEveryWording() {
        // FoundationNetworking passes only the message on: before 7.87 libcurl says it so.
        for message in ["CONNECT tunnel failed, response 407", "Received HTTP code 407 from proxy after CONNECT"] {
            guard case .proxy(.tunnelRefused(status: 407), _) = urlSession(message) else {
                return XCTFail("\(message) is \(urlSession(message))")
            }
        }
        // "Received HTTP code 404" alone is not about a proxy.
        if case .proxy = urlSession("Received HTTP code 404 from server") { XCTFail("not a proxy failure") }
    }

    func testAnUnresolvableProxyIsNamedWhateverTheCode() {
        for code: Int32 in [5, 6] {
            guard case .proxy(.unresolvableHost("proxy.invalid"), _) = curlEngine(code, "Could not resolve proxy: proxy.invalid") else {
                return XCTFail("\(code)")
            }
        }
        guard case .transport = curlEngine(6, "Could not resolve host: host.invalid") else { return XCTFail("a host is not a proxy") }
    }
}
