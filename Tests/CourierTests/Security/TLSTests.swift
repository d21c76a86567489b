import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `TLSOptions` against a real TLS server on loopback, with certificates made at test time, and
/// the `NetworkError.tls` case that says which check failed.
final class TLSTests: XCTestCase {
    override class func tearDown() {
        TLSFixture.tearDownShared()
        super.tearDown()
    }


    private func body(of url: URL, on network: Network, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let outcome = result(of: Request<Data>.get(url).string(), on: network, file: file, line: line)
        guard case let .success(text)? = outcome else {
            XCTFail("the request failed: \(String(describing: outcome))", file: file, line: line)
            return nil
        }
        return text
    }

    /// The failure a request for `url` ends with, which must be `NetworkError.tls`.
    private func tlsFailure(of url: URL, on network: Network, file: StaticString = #filePath,
                            line: UInt = #line) -> (TLSFailure, URLError)? {
        let error = networkError(result(of: Request<Data>.get(url), on: network, file: file, line: line), file: file, line: line)
        guard case let .tls(failure, urlError)? = error else {
            XCTFail("expected NetworkError.tls, got \(String(describing: error))", file: file, line: line)
            return nil
        }
        return (failure, urlError)
    }

    // MARK: - The server's certificate

    func testAServerNoTrustedAuthorityVouchesForIsUntrustedOnEitherEngine() throws {
        let server = try tlsServer()
        let network = makeNetwork()
        let failure = tlsFailure(of: server.url, on: network)
        XCTAssertEqual(failure?.0, .untrustedCertificate)
        // The TLS library's reason is kept: libcurl's "SSL certificate problem: ...".
        XCTAssertTrue(failure?.1.localizedDescription.contains("certificate") ?? false, "\(String(describing: failure))")
        let error = NetworkError.tls(.untrustedCertificate, try XCTUnwrap(failure?.1))
        XCTAssertTrue(error.localizedDescription.hasPrefix("The server's TLS certificate is not trusted: "), error.localizedDescription)
    }

    func testCertificateAuthoritiesMakeTheServerTrusted() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer()
        let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.authority))
        XCTAssertEqual(body(of: server.url, on: network), TLSTestServer.body)
    }

    func testACertificateForAnotherHostNameIsUntrusted() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer()
        let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.authority))
        // The certificate names 127.0.0.1, not localhost.
        let url = try XCTUnwrap(URL(string: "https://localhost:\(server.port)/hello"))
        XCTAssertEqual(tlsFailure(of: url, on: network)?.0, .untrustedCertificate)
    }

    func testInsecureModeSkipsVerification() throws {
        let server = try tlsServer()
        let network = try makeCurlNetwork(tls: TLSOptions(allowsInsecureConnections: true))
        XCTAssertEqual(body(of: server.url, on: network), TLSTestServer.body)
    }

    // MARK: - Pinned keys

    func testAMatchingPinPassesAndAnyOtherFails() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer()
        let pinned = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.authority,
                                                pinnedPublicKeys: [TLSCertificates.otherPin, certificates.serverPin]))
        XCTAssertEqual(body(of: server.url, on: pinned), TLSTestServer.body)

        // Pinning holds even where the certificate itself is not checked.
        let mismatched = try makeCurlNetwork(tls: TLSOptions(pinnedPublicKeys: [TLSCertificates.otherPin],
                                                    allowsInsecureConnections: true))
        XCTAssertEqual(tlsFailure(of: server.url, on: mismatched)?.0, .pinnedKeyMismatch)
    }

    // MARK: - Client certificates

    func testAClientCertificateIsSentWhenTheServerRequiresOne() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer(.clientCertificateRequired)
        let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.authority,
                                                 clientCertificate: certificates.clientCertificate,
                                                 clientKey: certificates.clientKey))
        XCTAssertEqual(body(of: server.url, on: network), TLSTestServer.body)
    }

    func testAServerRefusingUsForWantOfACertificateIsAFailedHandshake() throws {
        let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: tlsCertificates.authority))
        // TLS 1.3 refuses with an alert after the handshake (libcurl: 56), TLS 1.2 during it (35).
        for kind in [TLSFixture.Server.clientCertificateRequired, .clientCertificateRequiredTLS12] {
            let failure = tlsFailure(of: try tlsServer(kind).url, on: network)
            XCTAssertEqual(failure?.0, .handshakeFailed, "\(kind)")
            XCTAssertTrue(failure?.1.localizedDescription.contains("alert") ?? false, "\(String(describing: failure))")
        }
    }

    func testAnUnusableClientCertificateIsReportedAsSuch() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer(.clientCertificateRequired)
        let garbage = certificates.folder.appendingPathComponent("garbage.pem")
        try Data("not a certificate\n".utf8).write(to: garbage)
        for (certificate, key) in [(garbage, certificates.clientKey),
                                   (certificates.folder.appendingPathComponent("missing.pem"), certificates.clientKey),
                                   // A key that is not the certificate's.
                                   (certificates.clientCertificate, certificates.serverKey)] {
            let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.authority,
                                                     clientCertificate: certificate, clientKey: key))
            XCTAssertEqual(tlsFailure(of: server.url, on: network)?.0, .unusableClientCertificate, certificate.lastPathComponent)
        }
    }

    func testAnUnreadableAuthoritiesFileIsReportedAsSuch() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer()
        let network = try makeCurlNetwork(tls: TLSOptions(certificateAuthorities: certificates.folder.appendingPathComponent("missing.pem")))
        XCTAssertEqual(tlsFailure(of: server.url, on: network)?.0, .unreadableCertificateAuthorities)
    }

    // MARK: - URLSession

    func testTLSOptionsOnURLSessionFailEveryRequestBeforeSendingIt() throws {
        let server = try makeServer().withStandardRoutes()
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "test.callbacks"),
                              engine: .urlSession, tls: TLSOptions(allowsInsecureConnections: true))
        network.retryPolicy = .none
        for _ in 0..<2 {
            let failure = tlsFailure(of: server.url("/hello"), on: network)
            XCTAssertEqual(failure?.0, .unsupportedByEngine)
            XCTAssertTrue(failure?.1.localizedDescription.contains("curl engine") ?? false, "\(String(describing: failure))")
        }
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertEqual(server.connectionCount, 0)
    }

    func testTLSFailuresAreNotRetried() throws {
        let server = try tlsServer()
        let network = makeNetwork(retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0))
        struct AttemptCounter: NetworkObserver {
            let attempts: Box<Int>
            func willSend(_ request: URLRequest, context: RequestContext) { attempts.mutate { $0! += 1 } }
        }
        let attempts = Box(0)
        network.observers = [AttemptCounter(attempts: attempts)]
        XCTAssertEqual(tlsFailure(of: server.url, on: network)?.0, .untrustedCertificate)
        XCTAssertEqual(attempts.value, 1)
    }
}
