import Courier
import Foundation
import XCTest

/// What the TLS tests of one class share, made on first use: certificates and the servers that
/// use them. Making certificates and starting Python for every test would cost a third of a
/// second each; the class's `tearDown()` calls ``tearDownShared()`` to stop the servers and
/// remove the certificates.
final class TLSFixture: Sendable {
    enum Server: Hashable {
        /// Any client may connect.
        case open
        /// A client certificate issued by ``TLSCertificates/clientAuthority`` is required.
        case clientCertificateRequired
        /// The same over TLS 1.2 at most, where the refusal is part of the handshake.
        case clientCertificateRequiredTLS12
    }

    let certificates: TLSCertificates
    private let servers = Locked<[Server: TLSTestServer]>([:])

    private init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            certificates = try TLSCertificates(in: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// The server of this kind, started on first use.
    func server(_ kind: Server) throws -> TLSTestServer {
        try servers.withLock { servers in
            if let server = servers[kind] { return server }
            let server = try TLSTestServer(certificates, clientAuthority: kind == .open ? nil : certificates.clientAuthority,
                                           tls12Only: kind == .clientCertificateRequiredTLS12)
            servers[kind] = server
            return server
        }
    }

    private static let current = Locked<TLSFixture?>(nil)

    /// The fixture of the running test class; skips the test where openssl or python3 is missing.
    static func shared() throws -> TLSFixture {
        try current.withLock { current in
            if let fixture = current { return fixture }
            let fixture = try TLSFixture()
            current = fixture
            return fixture
        }
    }

    /// Stops the servers and removes the certificates.
    static func tearDownShared() {
        guard let fixture = current.withLock({ current in defer { current = nil }; return current }) else { return }
        for server in fixture.servers.withLock({ Array($0.values) }) { server.stop() }
        try? FileManager.default.removeItem(at: fixture.certificates.folder)
    }
}

extension XCTestCase {
    /// The certificates of the running class's ``TLSFixture``.
    var tlsCertificates: TLSCertificates {
        get throws { try TLSFixture.shared().certificates }
    }

    /// A server of the running class's ``TLSFixture``.
    func tlsServer(_ kind: TLSFixture.Server = .open) throws -> TLSTestServer {
        try TLSFixture.shared().server(kind)
    }
}

/// Certificates made with the `openssl` command, in a folder: a CA and a
/// server certificate it signed for `127.0.0.1` (subjectAltName `IP:127.0.0.1`), and a second CA
/// with a client certificate it signed, for servers that require one.
struct TLSCertificates {
    let folder: URL
    var authority: URL { folder.appendingPathComponent("ca.pem") }
    var serverCertificate: URL { folder.appendingPathComponent("server.pem") }
    var serverKey: URL { folder.appendingPathComponent("server.key") }
    var clientAuthority: URL { folder.appendingPathComponent("client-ca.pem") }
    var clientCertificate: URL { folder.appendingPathComponent("client.pem") }
    var clientKey: URL { folder.appendingPathComponent("client.key") }
    /// The server key's pin, as curl's `--pinnedpubkey` takes it: `sha256//BASE64`.
    let serverPin: String
    /// A well-formed pin of no key here.
    static let otherPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

    /// EC keys: quick to make.
    private static let script = """
        set -e
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj "/CN=Courier Test CA" -keyout ca.key -out ca.pem 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
            -keyout server.key -out server.csr 2>/dev/null
        printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out server.pem 2>/dev/null
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj "/CN=Courier Test Client CA" -keyout client-ca.key -out client-ca.pem 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=courier client" \
            -keyout client.key -out client.csr 2>/dev/null
        openssl x509 -req -in client.csr -CA client-ca.pem -CAkey client-ca.key -CAcreateserial -days 2 \
            -out client.pem 2>/dev/null
        openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
            | openssl dgst -sha256 -binary > server.pin
        """

    /// Makes the certificates in `folder`; skips the test where `openssl` is missing.
    init(in folder: URL) throws {
        guard ExternalTool.path(of: "openssl") != nil else { throw XCTSkip("no openssl command here") }
        self.folder = folder
        let result = try ExternalTool.run("/bin/sh", ["-c", Self.script], in: folder)
        guard result.status == 0 else { throw TLSFixtureError("openssl failed: \(result.stderrText)") }
        let digest = try Data(contentsOf: folder.appendingPathComponent("server.pin"))
        guard digest.count == 32 else { throw TLSFixtureError("the server key's digest has \(digest.count) bytes") }
        serverPin = "sha256//" + digest.base64EncodedString()
    }
}

/// A real HTTPS server on 127.0.0.1: Python's `http.server` behind an `ssl.SSLContext`, answering
/// every GET with `200` and `hello over tls`, but `/created` with `201`, an `X-Origin` header
/// and `created over tls` (``createdURL``); as an https proxy, a request for an `http://` URL
/// with the request line and header fields it received, one a line. Stopped by ``stop()``, or when the test process
/// dies: it exits when its stdin closes.
final class TLSTestServer: Sendable {
    private let server: PythonServerProcess

    var url: URL { URL(string: "https://127.0.0.1:\(port)/hello")! }
    static let body = "hello over tls\n"
    /// `201`, with `X-Origin: courier-tls-test-server` and ``createdBody``.
    var createdURL: URL { URL(string: "https://127.0.0.1:\(port)/created")! }
    static let createdBody = "created over tls\n"

    /// - Parameters:
    ///   - clientAuthority: Require a client certificate issued by this CA.
    ///   - tls12Only: TLS 1.2 at most, where a refused client certificate fails the handshake
    ///     itself (TLS 1.3 refuses it with an alert after the handshake).
    init(_ certificates: TLSCertificates, clientAuthority: URL? = nil, tls12Only: Bool = false) throws {
        guard let python = ExternalTool.path(of: "python3") else { throw XCTSkip("no python3 here") }
        server = try PythonServerProcess(python: python, script: Self.script, at: certificates.folder.appendingPathComponent("server.py"),
                                         arguments: [certificates.serverCertificate.path, certificates.serverKey.path,
                                                     clientAuthority?.path ?? "-", tls12Only ? "tls1.2" : "any"],
                                         what: "the TLS test server")
    }

    var port: Int { server.port }

    func stop() { server.stop() }

    private static let script = """
        import http.server, os, ssl, sys, threading

        certificate, key, client_authority, versions = sys.argv[1:5]

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                if self.path.startswith("http://"):
                    # A proxy request (the server as an https proxy): the head it received.
                    body = ("%s %s %s\\n%s" % (self.command, self.path, self.request_version, self.headers)).encode()
                    self.send_response(200)
                elif self.path == "/created":
                    body = b"created over tls\\n"
                    self.send_response(201)
                    self.send_header("X-Origin", "courier-tls-test-server")
                else:
                    body = b"hello over tls\\n"
                    self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            def finish_request(self, connection, address):
                try:
                    connection.do_handshake()
                except OSError:
                    # Keep the connection until the client closes it, so that the client reads
                    # the alert the failed handshake sent rather than a reset.
                    connection.settimeout(10)
                    try:
                        while os.read(connection.fileno(), 65536):
                            pass
                    except OSError:
                        pass
                    return
                super().finish_request(connection, address)
            def handle_error(self, request, address):
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        if client_authority != "-":
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(client_authority)
        if versions == "tls1.2":
            context.maximum_version = ssl.TLSVersion.TLSv1_2
        server = Server(("127.0.0.1", 0), Handler)
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        print(server.server_address[1], flush=True)
        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
        server.serve_forever()
        """
}

struct TLSFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Commands of the machine the tests use (openssl, python3, curl), found on `PATH`.
enum ExternalTool {
    static func path(of name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` to its end and returns what it wrote.
    static func run(_ executable: String, _ arguments: [String], in folder: URL? = nil) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both read to the end before waiting, so that a full pipe never blocks the child.
        let errorData = Box<Data>()
        let errorsRead = DispatchSemaphore(value: 0)
        Thread {
            errorData.value = errors.fileHandleForReading.readDataToEndOfFile()
            errorsRead.signal()
        }.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, stdout: outputData, stderr: errorData.value ?? Data())
    }
}
