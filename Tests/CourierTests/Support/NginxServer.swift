#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Courier
import Foundation
import XCTest

/// A real nginx on loopback, started by the tests: HTTP/2 over TLS (ALPN, a certificate made at
/// test time), HTTP/2 over cleartext for prior knowledge (h2c), plain HTTP/1.1, and a Unix domain
/// socket, all serving the same site. Its access log names the connection each request came
/// over (`$connection`), the protocol, the bytes sent and whether the response went out whole, so
/// tests can check from the server's side what went over the wire.
///
/// The site: static files (``helloPath``, ``smallFile``, ``largeFile``, ``hugeFile``), a redirect
/// (`/redirect` → `/hello.txt`), and `/app/…`, proxied to a ``TestServer`` (``backend``) over
/// HTTP/1.1 without buffering, for what a static server cannot do (echo an upload, fail once).
///
/// One server per test class (``NginxFixture``): starting it and making its certificate costs a
/// tenth of a second or so. nginx runs in the foreground (`daemon off`, `master_process off`) as
/// the current user, under a small shell that stops it when its standard input closes — when
/// ``stop()`` closes it, or when the test process dies — so no nginx outlives the tests.
final class NginxServer: @unchecked Sendable {  // `process` is only driven from the test's thread.
    let folder: URL
    let certificates: TLSCertificates
    /// HTTP/2 by ALPN over TLS (and HTTP/1.1 for a client that asks only for it).
    let tlsPort: Int
    /// HTTP/2 over cleartext, without upgrade: only a client with prior knowledge speaks it.
    let h2cPort: Int
    /// HTTP/1.1 over cleartext.
    let plainPort: Int
    /// HTTP/1.1 on a Unix domain socket.
    let socketPath: String
    /// The application server behind `/app/`.
    let backend: TestServer
    private let process: Process
    private let control: Pipe

    static let helloPath = "/hello.txt"
    static let helloBody = "hello from nginx\n"
    /// 256 KiB of random bytes.
    static let smallFile = "/small.bin"
    static let smallSize = 256 << 10
    /// 8 MiB, sparse (zeros).
    static let largeFile = "/large.bin"
    static let largeSize = 8 << 20
    /// 512 MiB, sparse: larger than any window libcurl opens, so a cancelled stream of it can
    /// be seen to stop on the server's side.
    static let hugeFile = "/huge.bin"
    static let hugeSize = 512 << 20

    func tlsURL(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(tlsPort)\(path)")! }
    func h2cURL(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(h2cPort)\(path)")! }
    func plainURL(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(plainPort)\(path)")! }
    /// The URL for the Unix socket: its host is only the `Host` header.
    func socketURL(_ path: String) -> URL { URL(string: "http://localhost\(path)")! }

    var accessLog: URL { folder.appendingPathComponent("access.log") }

    /// Where nginx is on this machine (Debian puts it in /usr/sbin, often not on a user's PATH).
    static var executable: String? {
        ExternalTool.path(of: "nginx")
            ?? ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx", "/opt/homebrew/bin/nginx"]
                .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts nginx; skips the test where it is not installed, unless `COURIER_REQUIRE_NGINX` is
    /// set (CI sets it: there a missing nginx is a failure, not a skip).
    init() throws {
        guard let nginx = Self.executable else {
            if ProcessInfo.processInfo.environment["COURIER_REQUIRE_NGINX"] != nil {
                throw NginxError("nginx is required (COURIER_REQUIRE_NGINX) but not installed: apt-get install -y nginx")
            }
            throw XCTSkip("nginx is not installed here (apt-get install -y nginx); the HTTP/2 and Unix socket tests need it")
        }
        // Short: a Unix socket's path must fit in 107 bytes.
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("cn-\(UUID().uuidString.prefix(8))")
        let files = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        var started = false
        defer { if !started { try? FileManager.default.removeItem(at: root) } }
        let certificates = try TLSCertificates(in: root)
        try Data(Self.helloBody.utf8).write(to: files.appendingPathComponent(String(Self.helloPath.dropFirst())))
        try Self.randomBytes(Self.smallSize).write(to: files.appendingPathComponent(String(Self.smallFile.dropFirst())))
        try Self.makeSparseFile(files.appendingPathComponent(String(Self.largeFile.dropFirst())), size: Self.largeSize)
        try Self.makeSparseFile(files.appendingPathComponent(String(Self.hugeFile.dropFirst())), size: Self.hugeSize)
        let backend = try TestServer()
        let socketPath = root.appendingPathComponent("s.sock").path

        // nginx cannot listen on port 0: free ports are found as TestServer.unusedPort() does,
        // and a start that loses one to another process is tried again with new ones.
        var attempt = 0
        while true {
            attempt += 1
            // Three different ones: each probe's socket is closed before the next, so the kernel
            // may hand out the same port twice (nginx then refuses a "duplicate listen"; seen in CI).
            var distinct: [Int] = []
            while distinct.count < 3 {
                let port = TestServer.unusedPort()
                if !distinct.contains(port) { distinct.append(port) }
            }
            let ports = (distinct[0], distinct[1], distinct[2])
            try Self.configuration(folder: root, files: files, certificates: certificates, tls: ports.0, h2c: ports.1,
                                   plain: ports.2, socket: socketPath, backend: backend.port)
                .write(to: root.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let (process, control) = try Self.launch(nginx, folder: root)
            if Self.waitForListeners(ports: [ports.0, ports.1, ports.2], socket: socketPath, process: process) {
                folder = root
                self.certificates = certificates
                self.backend = backend
                self.socketPath = socketPath
                self.process = process
                self.control = control
                (tlsPort, h2cPort, plainPort) = ports
                started = true
                return
            }
            try? control.fileHandleForWriting.close()
            process.waitUntilExit()
            let errors = (try? String(contentsOf: root.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            if attempt >= 3 || !errors.contains("Address already in use") {
                backend.stop()
                throw NginxError("nginx did not start: \(errors.suffix(2000))")
            }
        }
    }

    /// Stops nginx and its backend and removes the folder. Idempotent.
    func stop() {
        if process.isRunning {
            try? control.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        backend.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    // MARK: - The access log

    /// One line of the access log.
    struct LogEntry: Equatable {
        /// nginx's serial number of the connection (`$connection`).
        let connection: Int
        /// `HTTP/2.0`, `HTTP/1.1`.
        let protocolName: String
        let method: String
        let uri: String
        let status: Int
        /// Body bytes sent (`$body_bytes_sent`).
        let bodyBytesSent: Int64
        /// Whether the response went out whole (`$request_completion` is `OK`).
        let completed: Bool
        /// The client's port (`$remote_port`); 0 on the Unix socket.
        let clientPort: Int
        /// The request's length, head and body (`$request_length`).
        let requestLength: Int64
    }

    /// What the access log holds now, in order.
    var logEntries: [LogEntry] {
        let text = (try? String(contentsOf: accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 9, let connection = Int(parts[0]), let status = Int(parts[4]),
                  let sent = Int64(parts[5]), let length = Int64(parts[8]) else { return nil }
            return LogEntry(connection: connection, protocolName: parts[1], method: parts[2], uri: parts[3], status: status,
                            bodyBytesSent: sent, completed: parts[6] == "OK", clientPort: Int(parts[7]) ?? 0, requestLength: length)
        }
    }

    /// The entries for `uri` (its path and query, as requested).
    func entries(for uri: String) -> [LogEntry] {
        logEntries.filter { $0.uri == uri }
    }

    // MARK: - Starting

    private static func configuration(folder: URL, files: URL, certificates: TLSCertificates, tls: Int, h2c: Int, plain: Int,
                                      socket: String, backend: Int) -> String {
        let path = folder.path
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 1024; }
            http {
                log_format wire '$connection $server_protocol $request_method $request_uri $status $body_bytes_sent '
                                '$request_completion $remote_port $request_length';
                access_log \(path)/access.log wire;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                types { text/plain txt; application/octet-stream bin; }
                default_type application/octet-stream;
                keepalive_requests 100000;
                client_max_body_size 64m;
                server {
                    listen 127.0.0.1:\(tls) ssl http2;
                    listen 127.0.0.1:\(h2c) http2;
                    listen 127.0.0.1:\(plain);
                    listen unix:\(socket);
                    ssl_certificate \(certificates.serverCertificate.path);
                    ssl_certificate_key \(certificates.serverKey.path);
                    root \(files.path);
                    location = /redirect { return 302 /hello.txt; }
                    location /app/ {
                        proxy_pass http://127.0.0.1:\(backend)/;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_buffering off;
                        proxy_request_buffering off;
                    }
                }
            }
            """
    }

    /// nginx under a shell that stops it once the shell's standard input closes.
    private static func launch(_ nginx: String, folder: URL) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let script = """
            "$1" -p "$2" -c "$2/nginx.conf" -e "$2/error.log" &
            n=$!
            cat >/dev/null
            kill $n 2>/dev/null
            wait $n
            """
        process.arguments = ["-c", script, "nginx-under-test", nginx, folder.path]
        let control = Pipe()
        process.standardInput = control
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, control)
    }

    /// Waits (bounded) until every listener takes connections; `false` once nginx has given up.
    private static func waitForListeners(ports: [Int], socket: String, process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if ports.allSatisfy(canConnect(port:)), FileManager.default.fileExists(atPath: socket) { return true }
            // The shell waits for nginx; nginx that failed leaves a pid file never written.
            if let pid = nginxPID(in: URL(fileURLWithPath: socket).deletingLastPathComponent()), kill(pid, 0) != 0 { return false }
            if !process.isRunning { return false }
            if let errors = try? String(contentsOf: URL(fileURLWithPath: socket).deletingLastPathComponent()
                .appendingPathComponent("error.log"), encoding: .utf8), errors.contains("[emerg]") { return false }
            usleep(20_000)   // polling a listener that is coming up: bounded by the deadline above
        }
        return false
    }

    private static func nginxPID(in folder: URL) -> pid_t? {
        (try? String(contentsOf: folder.appendingPathComponent("nginx.pid"), encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private static func canConnect(port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    private static func makeSparseFile(_ url: URL, size: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }
}

struct NginxError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The nginx of the running test class, started on first use and stopped by the class's
/// `tearDown()` (``tearDownShared()``).
enum NginxFixture {
    private static let current = Locked<NginxServer?>(nil)

    static func shared() throws -> NginxServer {
        try current.withLock { current in
            if let server = current { return server }
            let server = try NginxServer()
            current = server
            return server
        }
    }

    static func tearDownShared() {
        current.withLock { current in
            current?.stop()
            current = nil
        }
    }
}
