import Foundation
import XCTest

/// `--cacert`, `--pinnedpubkey`, `--cert`/`--key` and `-k` against a real TLS server on loopback,
/// exiting as curl does: where the `curl` command is installed, each case is run through it as
/// well and the two exit statuses must agree.
final class CLITLSTests: CLITestCase {
    override class func tearDown() {
        TLSFixture.tearDownShared()
        super.tearDown()
    }


    /// Runs `courier --engine curl arguments… URL`, asserts its exit status is `expected` and, if
    /// curl is installed, that `curl -s -o /dev/null arguments… URL` exits the same way.
    @discardableResult
    private func assertExit(_ expected: Int32, _ arguments: [String], server: TLSTestServer,
                            file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        let url = server.url.absoluteString
        let result = try start(["--engine", "curl"] + arguments + [url], file: file, line: line).finish(file: file, line: line)
        XCTAssertEqual(result.status, expected, "courier \(arguments): \(result.stderrText)", file: file, line: line)
        if let curl = ExternalTool.path(of: "curl") {
            let reference = try ExternalTool.run(curl, ["-s", "-o", "/dev/null"] + arguments + [url])
            XCTAssertEqual(reference.status, expected, "curl \(arguments): \(reference.stderrText)", file: file, line: line)
        }
        return result
    }

    func testAnUntrustedServerExits60() throws {
        let result = try assertExit(60, [], server: tlsServer())
        XCTAssertTrue(result.stderrText.contains("the certificate of 127.0.0.1 is not trusted"), result.stderrText)
        XCTAssertEqual(result.stdout, Data())
    }

    func testCACertOrInsecureModeLetTheRequestThrough() throws {
        let server = try tlsServer()
        for arguments in [["--cacert", try tlsCertificates.authority.path], ["-k"], ["--insecure"]] {
            let result = try assertExit(0, arguments, server: server)
            XCTAssertEqual(result.stdoutText, TLSTestServer.body, "\(arguments)")
        }
    }

    func testPinnedPublicKeys() throws {
        let certificates = try tlsCertificates
        let server = try tlsServer()
        let trust = ["--cacert", certificates.authority.path]
        try assertExit(0, trust + ["--pinnedpubkey", certificates.serverPin], server: server)
        try assertExit(0, trust + ["--pinnedpubkey", TLSCertificates.otherPin + ";" + certificates.serverPin], server: server)
        let mismatch = try assertExit(90, trust + ["--pinnedpubkey", TLSCertificates.otherPin], server: server)
        XCTAssertTrue(mismatch.stderrText.contains("does not match --pinnedpubkey"), mismatch.stderrText)
        // The pin is checked even with -k.
        try assertExit(90, ["-k", "--pinnedpubkey", TLSCertificates.otherPin], server: server)
    }

    func testClientCertificates() throws {
        let certificates = try tlsCertificates
        let trust = ["--cacert", certificates.authority.path]
        let server = try tlsServer(.clientCertificateRequired)
        let accepted = try assertExit(0, trust + ["--cert", certificates.clientCertificate.path,
                                                  "--key", certificates.clientKey.path], server: server)
        XCTAssertEqual(accepted.stdoutText, TLSTestServer.body)
        try assertExit(0, trust + ["-E", certificates.clientCertificate.path, "--key", certificates.clientKey.path], server: server)

        // Refused for want of a certificate: TLS 1.3 says so after the handshake (56), TLS 1.2 in it (35).
        let refused = try assertExit(56, trust, server: server)
        XCTAssertTrue(refused.stderrText.contains("TLS handshake with 127.0.0.1 failed"), refused.stderrText)
        try assertExit(35, trust, server: tlsServer(.clientCertificateRequiredTLS12))

        // A key that is not the certificate's: nothing is sent.
        let unusable = try assertExit(58, trust + ["--cert", certificates.clientCertificate.path,
                                                   "--key", certificates.serverKey.path], server: server)
        XCTAssertTrue(unusable.stderrText.contains("client certificate or key cannot be used"), unusable.stderrText)
    }

    func testAnUnreadableCAFileExits77() throws {
        let missing = try tlsCertificates.folder.appendingPathComponent("missing-ca.pem").path
        let result = try assertExit(77, ["--cacert", missing], server: tlsServer())
        XCTAssertTrue(result.stderrText.contains("cannot read the --cacert file"), result.stderrText)
    }

    func testEngineOptionBeatsTheEnvironment() throws {
        let result = try start(["--engine", "curl", "-k", try tlsServer().url.absoluteString],
                               environment: ["COURIER_ENGINE": "urlsession"]).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdoutText, TLSTestServer.body)
    }

    func testTLSAndProxyOptionsNeedTheCurlEngine() throws {
        for option in [["--cacert", "ca.pem"], ["--pinnedpubkey", TLSCertificates.otherPin], ["--cert", "c.pem"],
                       ["-k"], ["--insecure"], ["-x", "http://127.0.0.1:1"], ["--proxy", "127.0.0.1:1"]] {
            for command in [["get"], ["download"]] {
                let result = try start(command + ["--engine", "urlsession"] + option + ["https://127.0.0.1:1/a"]).finish()
                assertUsageError(result, mentions: "needs the curl engine (--engine curl)")
            }
            // With the engine chosen through the environment as well.
            let result = try start(option + ["https://127.0.0.1:1/a"], environment: ["COURIER_ENGINE": "urlsession"]).finish()
            assertUsageError(result, mentions: "needs the curl engine")
        }
        assertUsageError(try courier("--engine", "curl", "--key", "k.pem", "https://127.0.0.1:1/"), mentions: "--key needs --cert")
    }
}

extension CLITLSTests {
    /// `--proxy-insecure` goes to libcurl: an https proxy whose certificate is not trusted is
    /// used all the same (without it: exit 60, as curl), and the proxy request is curl's, its
    /// `Proxy-Connection` last. On URLSession, it is refused (exit 4).
    func testProxyInsecureTrustsAnHTTPSProxy() throws {
        let proxy = try tlsServer()
        let arguments = ["-x", "https://127.0.0.1:\(proxy.port)", "http://origin.invalid/x"]
        let refused = try start(["--engine", "curl", "-s"] + arguments).finish()
        XCTAssertEqual(refused.status, 60, refused.stderrText)
        let result = try start(["--engine", "curl", "-s", "--proxy-insecure"] + arguments).finish()
        XCTAssertEqual(result.status, 0, result.stderrText)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "GET http://origin.invalid/x HTTP/1.1", result.stdoutText)
        XCTAssertEqual(lines.last, "Proxy-Connection: Keep-Alive", "where curl sends it: \(result.stdoutText)")
        if RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = try RealCurl.run(["-s", "--proxy-insecure"] + arguments) {
            XCTAssertEqual(result.stdoutText, curl.stdoutText, "as curl sends it")
        }
        let urlSession = try start(["--engine", "urlsession", "--proxy-insecure", "http://127.0.0.1:1/x"]).finish()
        XCTAssertEqual(urlSession.status, 4, urlSession.stderrText)
        XCTAssertTrue(urlSession.stderrText.contains("--proxy-insecure"), urlSession.stderrText)
    }

    /// `--crlfile` goes to libcurl, which loads the file before the handshake: one it cannot
    /// load fails the transfer (curl's exit is 82, CURLE_SSL_CRL_BADFILE, which the library does
    /// not tell apart: courier's is 56) where the same line without it goes through. On
    /// URLSession, it is refused (exit 4), nothing sent.
    func testCRLFileGoesToLibcurl() throws {
        let server = try tlsServer()
        let authority = try tlsCertificates.authority.path
        let notACRL = try makeFile(named: "bad.crl", content: Data("not a CRL\n".utf8)).path
        let url = server.url.absoluteString
        let result = try start(["--engine", "curl", "--cacert", authority, "--crlfile", notACRL, url]).finish()
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderrText.contains("error loading CRL file"), result.stderrText)
        XCTAssertEqual(result.stdout, Data())
        if let curl = ExternalTool.path(of: "curl") {
            let reference = try ExternalTool.run(curl, ["-s", "-o", "/dev/null", "--cacert", authority, "--crlfile", notACRL, url])
            XCTAssertEqual(reference.status, 82, reference.stderrText)
        }
        try assertExit(0, ["--cacert", authority], server: server)
        let refused = try start(["--engine", "urlsession", "--crlfile", notACRL, url]).finish()
        XCTAssertEqual(refused.status, 4, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("--crlfile"), refused.stderrText)
    }
}
