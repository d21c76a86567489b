#if canImport(Glibc)
import Glibc
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// libFuzzer's entry point: one input is one server reply (after a first byte choosing how the
/// request is made), sent by a loopback server to a real request on the curl engine.
///
/// Whatever the bytes, the request must end — with its output or a ``NetworkError`` — within its
/// deadline, leave no file behind on failure, and leak no file descriptor. Anything else (a
/// crash, a trap, an AddressSanitizer report, a hang) is a finding. Built and run by scripts/fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerReply(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes, count > 0 else { return 0 }
    ReplyFuzzer.shared.run(selector: bytes[0], reply: Data(bytes: bytes + 1, count: count - 1))
    return 0
}

/// The fixture shared by every input: the server, the networks, a download folder.
final class ReplyFuzzer: Sendable {
    static let shared: ReplyFuzzer = {
        let fuzzer = ReplyFuzzer()
        fuzzer.checkJail()
        fuzzer.checkResume()
        // Connections libcurl keeps, pipes, the server's socket: whatever the warm-up left open,
        // plus a margin for connections a reply leaves cached.
        fuzzer.descriptorLimit.withLock { $0 = openDescriptors() + 48 }
        return fuzzer
    }()

    /// The request's deadline; a request still running well after it is a finding.
    private static let deadline: TimeInterval = 5
    private static let url = URL(string: "http://courier-fuzz.test/file")!
    /// What a download with `.replaceExisting` finds at its destination.
    private static let earlierFile = Data("an earlier file".utf8)
    /// Under `TMPDIR`, which scripts/fuzz points at a folder of its own and empties (libFuzzer
    /// ends the process without running exit handlers).
    private static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fuzz-\(UUID().uuidString)")

    private let server = ReplyServer()
    /// No cookies, the default response size limit.
    private let plain: Network
    /// Cookies in an in-memory store (emptied before each input), a 1 KB response size limit.
    private let withCookies: Network
    private let cookies: HTTPCookieStorage
    private let folder: URL
    private let destination: URL
    private let descriptorLimit = Locked(0)

    private init() {
        // Network jail: every transfer goes to the loopback server as its HTTP proxy, whatever
        // host a redirect names, so nothing is resolved or sent beyond 127.0.0.1 (the check
        // below proves it before any fuzzing).
        let proxy = "http://127.0.0.1:\(server.port)"
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] { setenv(name, proxy, 1) }
        for name in ["no_proxy", "NO_PROXY"] { unsetenv(name) }

        let quiet = URLSessionConfiguration.default
        quiet.httpShouldSetCookies = false
        quiet.httpCookieStorage = nil
        plain = Self.makeNetwork(quiet)
        let ephemeral = URLSessionConfiguration.ephemeral
        guard let storage = ephemeral.httpCookieStorage, storage !== HTTPCookieStorage.shared else {
            fatalError("fuzz: an ephemeral configuration has no private cookie storage")
        }
        cookies = storage
        withCookies = Self.makeNetwork(ephemeral)
        withCookies.maximumResponseSize = 1024

        folder = Self.folder
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            fatalError("fuzz: cannot create \(folder.path): \(error)")
        }
        destination = folder.appendingPathComponent("body.bin")
    }

    private static func makeNetwork(_ configuration: URLSessionConfiguration) -> Network {
        let network = Network(configuration: configuration, callbackQueue: .global(), maximumConcurrentRequests: 1, engine: .curl)
        guard network.engine == .curl else {
            fatalError("fuzz: the curl engine is unavailable: \(Network.Engine.curlUnavailableReason ?? "?")")
        }
        // Retries at once (a Retry-After above 0 s ends them): they run the retry path without sleeping.
        network.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0, maximumDelay: 0, maximumRetryAfter: 0)
        network.maximumRedirects = 3
        return network
    }

    // MARK: - One input

    /// What the selector byte chooses: bits 0–1 the kind of request (0 GET in memory, or HEAD
    /// with bit 4, or a GET streamed with bit 5; 1 POST; 2 download; 3 resumed download); bit 2
    /// accepted content types (in memory, streamed), or an existing destination and
    /// `.replaceExisting` (downloads); bit 3 the network with cookies.
    private enum Kind {
        case get, head, stream, post, download, resume
    }

    func run(selector: UInt8, reply: Data) {
        server.setReply(reply)
        cookies.removeCookies(since: .distantPast)
        let network = selector & 8 == 0 ? plain : withCookies
        // Both networks have an HTTPCache (their configurations' urlCache): each input starts
        // with it empty, so that it depends on nothing an earlier one stored, and the reply's
        // caching fields (Cache-Control, Expires, Vary, Age) go through the rules that store it.
        network.cache?.removeAll()
        let kind: Kind
        switch selector & 3 {
        case 0: kind = selector & 16 != 0 ? .head : selector & 32 != 0 ? .stream : .get
        case 1: kind = .post
        case 2: kind = .download
        default: kind = .resume
        }
        let started = Date()
        switch kind {
        case .get, .head, .post:
            var request = Request<Data>(method: kind == .post ? .post : kind == .head ? .head : .get, url: Self.url,
                                        body: kind == .post ? .text("fuzz") : nil, timeout: Self.deadline)
            if selector & 4 != 0 { request.acceptedContentTypes = ["application/json", "text/*"] }
            let result = network.scheduleSynchronously(request)
            check(result.map { _ in () })
        case .stream:
            var request = Request<Data>(url: Self.url, timeout: Self.deadline)
            if selector & 4 != 0 { request.acceptedContentTypes = ["application/json", "text/*"] }
            var received = 0
            let result = network.streamSynchronously(request, onData: { received += $0.count })
            check(result.map { _ in () })
        case .download, .resume:
            if kind == .resume { plantPartialFile() }
            let replacing = selector & 4 != 0
            if replacing { _ = FileManager.default.createFile(atPath: destination.path, contents: Self.earlierFile) }
            let request = Request<Data>(url: Self.url, timeout: Self.deadline)
            let result = network.downloadSynchronously(request, to: destination, options: replacing ? [.replaceExisting] : [])
            check(result.map { _ in () })
            checkFiles(after: result, replacing: replacing)
            clearFolder()
        }
        let elapsed = Date().timeIntervalSince(started)
        // Retries and redirects each start over, but all within the one deadline.
        if elapsed > Self.deadline + 5 {
            fatalError("fuzz: the request ran \(elapsed) s, past its \(Self.deadline) s deadline")
        }
        let open = Self.openDescriptors(), limit = descriptorLimit.current
        if open > limit {
            fatalError("fuzz: \(open) file descriptors open, more than \(limit): a leak\n\(Self.describeDescriptors())")
        }
    }

    /// Every failure is a `NetworkError`, whatever the server sent.
    private func check(_ result: Result<Void, any Error>) {
        if case let .failure(error) = result, !(error is NetworkError) {
            fatalError("fuzz: a failure that is not a NetworkError: \(type(of: error)) \(error)")
        }
    }

    /// A download that failed leaves the destination as it was (absent, or the earlier file);
    /// one that succeeded leaves a regular file and no partial file.
    private func checkFiles(after result: Result<URL, any Error>, replacing: Bool) {
        let manager = FileManager.default
        let partial = destination.path + ".partial"
        switch result {
        case .success:
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: destination.path, isDirectory: &isFolder), !isFolder.boolValue else {
                fatalError("fuzz: a successful download left no file")
            }
            if manager.fileExists(atPath: partial) { fatalError("fuzz: a successful download left its .partial file") }
        case .failure:
            let left = manager.contents(atPath: destination.path)
            if left != (replacing ? Self.earlierFile : nil) { fatalError("fuzz: a failed download changed its destination") }
        }
    }

    // MARK: - Download folder

    /// Five bytes of an earlier attempt and their sidecar, so that the download asks for the rest.
    private func plantPartialFile() {
        let files = DownloadFiles(destination: destination)
        do {
            try Data("hello".utf8).write(to: files.partial)
            try files.saveRecord(.init(url: Self.url.absoluteString, validator: "\"fuzz\"", bytes: 5))
        } catch {
            fatalError("fuzz: cannot plant a partial file: \(error)")
        }
    }

    private func clearFolder() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names { unlink(folder.appendingPathComponent(name).path) }
    }

    // MARK: - Checks before fuzzing

    /// Proves the jail: a request for a host that does not exist reaches the loopback server as
    /// a proxy request (absolute-form request line).
    private func checkJail() {
        server.setReply(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8))
        let result = plain.scheduleSynchronously(Request<Data>(url: URL(string: "http://jail-check.test/x")!, timeout: Self.deadline))
        guard case .success(Data("ok".utf8)) = result, server.lastRequest.hasPrefix("GET http://jail-check.test/x HTTP/1.1") else {
            fatalError("fuzz: requests do not go through the loopback proxy (\(result)); refusing to fuzz\n\(server.lastRequest)")
        }
    }

    /// Proves the resume variant asks for a range and appends to the planted bytes.
    private func checkResume() {
        plantPartialFile()
        // The recorded validator: a 206 without it is another version's, and is never appended.
        server.setReply(Data("HTTP/1.1 206 Partial Content\r\nETag: \"fuzz\"\r\nContent-Range: bytes 5-9/10\r\nContent-Length: 5\r\n\r\nworld".utf8))
        let result = plain.downloadSynchronously(Request<Data>(url: Self.url, timeout: Self.deadline), to: destination)
        let saved = try? Data(contentsOf: destination)
        guard case .success = result, saved == Data("helloworld".utf8), server.lastRequest.contains("Range: bytes=5-") else {
            fatalError("fuzz: the resume variant does not resume (\(result))\n\(server.lastRequest)")
        }
        clearFolder()
    }

    // MARK: - File descriptors

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    private static func describeDescriptors() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var kinds: [String: Int] = [:]
        for name in names {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "?"
            kinds[target.hasPrefix("socket:") ? "socket" : target.hasPrefix("pipe:") ? "pipe" : target, default: 0] += 1
        }
        return kinds.sorted { $0.value > $1.value }.map { "  \($0.value) × \($0.key)" }.joined(separator: "\n")
    }
}
