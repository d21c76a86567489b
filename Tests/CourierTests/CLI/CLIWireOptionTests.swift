#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Courier
import Foundation
import XCTest

/// curl's options that change what goes on the wire and that libcurl does itself, which courier
/// hands to it on the curl engine (`--request-target`, `--path-as-is`, `-0`, `--haproxy-protocol`,
/// `--interface`, `-4`/`-6`, `--proxy1.0`, `--raw`, `--http0.9`, `--proxy-header`) and refuses on the URLSession
/// engine with curl's exit code 4; and `--socks4`/`--socks5`…, curl's `-x` with a SOCKS type.
/// Where the `curl` command is installed, the same line must put the same bytes on the wire.
final class CLIWireOptionTests: CLITestCase {
    private var usesCurl: Bool { Network.Engine.automatic.resolved == .curl }

    /// What one run of the line put on the wire (all its connections), with the listener's port
    /// written `PORT` (and a PROXY line's client port `CLIENT`); and the same for curl, when
    /// installed and courier runs on the libcurl curl runs on. `arguments` gets the listener.
    /// `status`: the exit status both must end with (`nil`: whatever curl's is, which differs
    /// among libcurls).
    private func wire(_ arguments: (RawCaptureServer) -> [String], status: Int32? = 0,
                      file: StaticString = #filePath, line: UInt = #line) throws -> String {
        func run(_ tool: ([String]) throws -> CLIResult?) throws -> (text: String, status: Int32)? {
            let server = try RawCaptureServer()
            defer { server.stop() }
            guard let result = try tool(["-s", "-o", "/dev/null"] + arguments(server)) else { return nil }
            if let status { XCTAssertEqual(result.status, status, result.stderrText, file: file, line: line) }
            let text = String(decoding: server.received, as: UTF8.self).replacingOccurrences(of: String(server.port), with: "PORT")
            return (text.replacingOccurrences(of: "^(PROXY TCP4 [0-9.]+ [0-9.]+) [0-9]+ ", with: "$1 CLIENT ", options: .regularExpression),
                    result.status)
        }
        let courier = try run { try start($0).finish() } ?? ("", -1)
        if RealCurl.courierRunsOnTheMeasuredLibcurl, let curl = try run({ try RealCurl.run($0) }) {
            XCTAssertEqual(courier.text, curl.text, "as curl sends it", file: file, line: line)
            XCTAssertEqual(courier.status, curl.status, "curl's exit status", file: file, line: line)
        }
        return courier.text
    }

    /// On URLSession: exit 4 (curl's "not built in"), a sentence naming the option, nothing sent.
    private func assertRefused(_ arguments: [String], naming option: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try RawCaptureServer()
        defer { server.stop() }
        let result = try start(arguments + [server.url.absoluteString]).finish()
        XCTAssertEqual(result.status, 4, result.stderrText, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains(option) && result.stderrText.contains("curl engine"), result.stderrText,
                      file: file, line: line)
        XCTAssertEqual(server.connectionCount, 0, "nothing sent", file: file, line: line)
    }

    func testRequestTargetPathAsIsAndHTTP10ShapeTheRequestLine() throws {
        guard usesCurl else {
            try assertRefused(["--request-target", "*"], naming: "--request-target")
            try assertRefused(["--path-as-is"], naming: "--path-as-is")
            try assertRefused(["-0"], naming: "--http1.0")
            return
        }
        let options = try wire { ["--request-target", "*", "-X", "OPTIONS", $0.url.absoluteString] }
        XCTAssertTrue(options.hasPrefix("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"), options)
        let asIs = try wire { ["--path-as-is", "http://127.0.0.1:\($0.port)/a/../b/./c"] }
        XCTAssertTrue(asIs.hasPrefix("GET /a/../b/./c HTTP/1.1\r\n"), asIs)
        let resolved = try wire { ["http://127.0.0.1:\($0.port)/a/../b/./c"] }
        XCTAssertTrue(resolved.hasPrefix("GET /b/c HTTP/1.1\r\n"), "without it, libcurl resolves the dots: \(resolved)")
        let http10 = try wire { ["-0", $0.url.absoluteString] }
        XCTAssertTrue(http10.hasPrefix("GET /ok HTTP/1.0\r\n"), http10)
        // An upload over HTTP/1.0 goes without `Expect: 100-continue`, which 1.0 does not have.
        let file = try makeFile(named: "up", content: Data("upload".utf8))
        let put = try wire { ["-0", "-T", file.path, $0.url.absoluteString] }
        XCTAssertTrue(put.hasPrefix("PUT /ok HTTP/1.0\r\n") && put.hasSuffix("\r\n\r\nupload"), put)
        XCTAssertFalse(put.contains("Expect:"), put)
        // The last of -0 and --http1.1 wins, as in curl.
        let http11 = try wire { ["-0", "--http1.1", $0.url.absoluteString] }
        XCTAssertTrue(http11.hasPrefix("GET /ok HTTP/1.1\r\n"), http11)
    }

    func testHAProxyInterfaceAndAddressFamily() throws {
        guard usesCurl else {
            try assertRefused(["--haproxy-protocol"], naming: "--haproxy-protocol")
            try assertRefused(["--interface", "127.0.0.1"], naming: "--interface")
            try assertRefused(["-4"], naming: "--ipv4")
            return
        }
        let haproxy = try wire { ["--haproxy-protocol", $0.url.absoluteString] }
        XCTAssertTrue(haproxy.hasPrefix("PROXY TCP4 127.0.0.1 127.0.0.1 CLIENT PORT\r\nGET /ok HTTP/1.1\r\n"), haproxy)
        let fromLoopback = try wire { ["--interface", "127.0.0.1", "-4", $0.url.absoluteString] }
        XCTAssertTrue(fromLoopback.hasPrefix("GET /ok HTTP/1.1\r\n"), fromLoopback)
        // An interface that does not exist: curl's exit code (45), nothing sent. (-6 for an IPv4
        // address is libcurl's to judge: 7.88.1 refuses it with 7, 7.74.0 connects anyway; the
        // option is set either way, as -4 shows above.)
        let none = try wire({ ["--interface", "courier-none0", $0.url.absoluteString] }, status: 45)
        XCTAssertEqual(none, "")
    }

    func testProxy10AndSOCKSProxies() throws {
        guard usesCurl else {
            try assertRefused(["--proxy1.0", "127.0.0.1:9"], naming: "--proxy1.0")
            return
        }
        // The capture answers the CONNECT with a 200 and closes, which ends the transfer in a way
        // that depends on the libcurl: only the CONNECT line matters here.
        let tunnel = try wire({ ["-p", "--proxy1.0", "127.0.0.1:\($0.port)", "http://origin.invalid/x"] }, status: nil)
        XCTAssertTrue(tunnel.hasPrefix("CONNECT origin.invalid:80 HTTP/1.0\r\nHost: origin.invalid:80\r\n"), tunnel)
        // A later -x is an HTTP/1.1 proxy again.
        let plain = try wire({ ["-p", "--proxy1.0", "127.0.0.1:\($0.port)", "-x", "127.0.0.1:\($0.port)", "http://origin.invalid/x"] },
                             status: nil)
        XCTAssertTrue(plain.hasPrefix("CONNECT origin.invalid:80 HTTP/1.1\r\n"), plain)
        // The capture never answers a SOCKS greeting: the first byte is the SOCKS version, then
        // the transfer times out (28), as curl's.
        let socks4 = try wire({ ["-m", "1", "--socks4", "127.0.0.1:\($0.port)", "http://127.0.0.1:9/x"] }, status: 28)
        XCTAssertEqual(socks4.utf8.first, 4, "a SOCKS4 request")
        let socks5 = try wire({ ["-m", "1", "--socks5", "127.0.0.1:\($0.port)", "http://127.0.0.1:9/x"] }, status: 28)
        XCTAssertEqual(socks5.utf8.first, 5, "a SOCKS5 greeting")
        // A SOCKS proxy that reads the request and hangs up: curl's CURLE_PROXY, 97, from
        // libcurl 7.73.0.
        if (Network.Engine.curlFeatures?.versionNumber ?? 0) >= 0x074900 {
            for kind in ["--socks4", "--socks5"] {
                let proxy = try HangingUpListener()
                let result = try courier("-s", kind, "127.0.0.1:\(proxy.port)", "http://127.0.0.1:9/x")
                XCTAssertEqual(result.status, 97, "\(kind): \(result.stderrText)")
            }
        }
    }

    func testProxyHeaderGoesToTheProxyOnly() throws {
        guard usesCurl else {
            try assertRefused(["--proxy-header", "X-For-Proxy: 1"], naming: "--proxy-header")
            return
        }
        // A proxy request: the request's fields, then the proxy's lines; a Proxy-Connection
        // among them is sent once, in their place.
        let proxied = try wire { ["-x", "127.0.0.1:\($0.port)", "--proxy-header", "X-For-Proxy: 1", "--proxy-header",
                                  "Proxy-Connection: Keep-Alive", "-H", "X-For-Server: 2", "http://origin.invalid/x"] }
        XCTAssertTrue(proxied.hasPrefix("GET http://origin.invalid/x HTTP/1.1\r\n"), proxied)
        XCTAssertTrue(proxied.hasSuffix("X-For-Server: 2\r\nX-For-Proxy: 1\r\nProxy-Connection: Keep-Alive\r\n\r\n"), proxied)
        XCTAssertEqual(proxied.components(separatedBy: "Proxy-Connection").count, 2, proxied)
        // A tunnel: the CONNECT carries the proxy's lines, not the server's (the capture answers
        // it and nothing more, so the request in the tunnel times out).
        let tunnel = try wire({ ["-m", "1", "-p", "-x", "127.0.0.1:\($0.port)", "--proxy-header", "X-For-Proxy: 1",
                                 "-H", "X-For-Server: 2", "http://origin.invalid/x"] }, status: nil)
        let connect = tunnel.components(separatedBy: "\r\n\r\n").first ?? ""
        XCTAssertTrue(connect.hasPrefix("CONNECT origin.invalid:80 HTTP/1.1\r\n") && connect.hasSuffix("\r\nX-For-Proxy: 1"), connect)
        XCTAssertFalse(connect.contains("X-For-Server"), connect)
    }

    func testRawKeepsTheChunksAndHTTP09TakesABodyWithoutHead() throws {
        let server = try makeServer()
        server.route("/chunked") { _, writer in
            writer.writeHead(status: 200, headers: [("Transfer-Encoding", "chunked")])
            writer.write(Data("5\r\nhello\r\n0\r\n\r\n".utf8))
        }
        server.route("/old") { _, writer in
            writer.write(Data("no head at all\n".utf8))
            writer.closeConnection()
        }
        guard usesCurl else {
            try assertRefused(["--raw"], naming: "--raw")
            try assertRefused(["--http0.9"], naming: "--http0.9")
            return
        }
        for arguments in [["--raw", server.url("/chunked").absoluteString], ["--http0.9", server.url("/old").absoluteString]] {
            let result = try start(["-s"] + arguments).finish()
            XCTAssertEqual(result.status, 0, result.stderrText)
            XCTAssertEqual(result.stdoutText, arguments[0] == "--raw" ? "5\r\nhello\r\n0\r\n\r\n" : "no head at all\n")
            if let curl = try RealCurl.run(["-s"] + arguments) {
                XCTAssertEqual(curl.stdoutText, result.stdoutText, "as curl writes it")
            }
        }
        XCTAssertEqual(try courier("-s", server.url("/chunked").absoluteString).stdoutText, "hello", "decoded without --raw")
        // -i writes no head for HTTP/0.9 (there is none), and --no-http0.9 refuses it again:
        // libcurl's CURLE_UNSUPPORTED_PROTOCOL, curl's 1 (7.66.0 on; before, it was allowed).
        let included = try courier("-s", "-i", "--http0.9", server.url("/old").absoluteString)
        XCTAssertEqual(included.stdoutText, "no head at all\n")
        if (Network.Engine.curlFeatures?.versionNumber ?? 0) >= 0x074200 {
            XCTAssertEqual(try courier("-s", "--http0.9", "--no-http0.9", server.url("/old").absoluteString).status, 1)
        }
        // A gzip transfer coding stays coded with --raw, as in curl.
        let gzipped = Gzip.stored(Data("coded".utf8))
        server.route("/te-gzip") { _, writer in
            writer.writeHead(status: 200, headers: [("Transfer-Encoding", "gzip"), ("Content-Length", String(gzipped.count))])
            writer.write(gzipped)
        }
        let coded = try courier("-s", "--raw", server.url("/te-gzip").absoluteString)
        XCTAssertEqual(coded.stdout, gzipped)
    }
}

/// A listener that reads what one connection sends first and then closes it: a proxy that
/// refuses every request.
private final class HangingUpListener: @unchecked Sendable {   // `port` is immutable; the socket is only closed
    let port: Int
    private let listener: TestServerSocket

    init() throws {
        let fd = try TestServerSocket.makeBoundSocket()
        port = try TestServerSocket.localPort(fd)
        guard listen(fd, 4) == 0 else { throw TestServerError("listen") }
        listener = TestServerSocket(fd: fd)
        Thread { [listener] in
            while true {
                // Polled, so that a listener nobody connects to still ends when closed.
                let client: Int32? = listener.withFD { fd in
                    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    return poll(&pfd, 1, 200) > 0 ? accept(fd, nil, nil) : -1
                }
                guard let client else { return }
                if client < 0 { continue }
                let socket = TestServerSocket(fd: client)
                var scratch = [UInt8](repeating: 0, count: 1024)
                _ = socket.receive(into: &scratch)
                socket.close()
                return
            }
        }.start()
    }

    deinit { listener.close() }
}
