import Foundation
import XCTest

/// What one run of the `courier` executable produced.
struct CLIResult {
    let status: Int32
    let stdout: Data
    let stderr: Data

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// A `courier` process still running, for tests that act on it mid-way (signals).
///
/// Its stdout and stderr are drained on background threads from the start, so the child can
/// never block on a full pipe while the test waits for something else.
final class RunningCourier: @unchecked Sendable {
    // `@unchecked`: the process is only driven from the test's thread; outputs are in Boxes.
    let process: Process
    private let stdout = Box<Data>()
    private let stderr = Box<Data>()
    private let drained = DispatchGroup()
    private let exited = DispatchSemaphore(value: 0)

    /// `stdin` is written and then closed, unless `keepingStdinOpen`: then the child waits on an
    /// input that never ends, as at a terminal. `environment` is added to this process's own.
    init(executable: URL, arguments: [String], directory: URL?, stdin: Data?, keepingStdinOpen: Bool = false,
         environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        for (pipe, box) in [(outPipe, stdout), (errPipe, stderr)] {
            drained.enter()
            Thread { [drained] in
                box.value = pipe.fileHandleForReading.readDataToEndOfFile()
                drained.leave()
            }.start()
        }
        if let stdin { inPipe.fileHandleForWriting.write(stdin) }
        if keepingStdinOpen { stdinPipe = inPipe } else { try? inPipe.fileHandleForWriting.close() }
    }

    /// Kept only so that the child's stdin stays open while it runs.
    private var stdinPipe: Pipe?

    /// The child's blocked-signal mask, from /proc (Linux), or nil.
    var blockedSignals: UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }) else { return nil }
        return UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }

    /// Sends SIGINT, as Ctrl-C in a terminal does.
    func interrupt() { process.interrupt() }

    /// Sends SIGTERM.
    func terminate() { process.terminate() }

    /// Waits for the exit and the end of both outputs; a hung process is killed and reported.
    func finish(timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line) -> CLIResult {
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            XCTFail("courier did not exit within \(timeout) s; killed", file: file, line: line)
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        if drained.wait(timeout: .now() + 10) == .timedOut {
            XCTFail("courier's output did not close", file: file, line: line)
        }
        return CLIResult(status: process.terminationStatus, stdout: stdout.value ?? Data(), stderr: stderr.value ?? Data())
    }
}

/// Base of the end-to-end tests: runs the built `courier` binary as a subprocess, against the
/// loopback ``TestServer``, and looks only at what a user would see (exit status, stdout,
/// stderr, files).
class CLITestCase: XCTestCase {
    /// `swift build` and `swift test` put the executable next to the test bundle.
    static let executable: URL? = {
        var folders: [URL] = []
        let mainBundle = Bundle.main.bundleURL
        folders += [mainBundle, mainBundle.deletingLastPathComponent()]
        folders += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
        if let argument = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: argument).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        return folders.map { $0.appendingPathComponent("courier") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    func executable(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        guard let executable = Self.executable else {
            XCTFail("the courier executable was not found next to the test bundle", file: file, line: line)
            throw XCTSkip("no courier executable")
        }
        return executable
    }

    /// Runs `courier arguments…` to the end.
    func courier(_ arguments: String..., stdin: Data? = nil, in directory: URL? = nil, environment: [String: String] = [:],
                 timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        try start(arguments, stdin: stdin, in: directory, environment: environment, file: file, line: line)
            .finish(timeout: timeout, file: file, line: line)
    }

    /// Starts `courier arguments…` and returns at once.
    func start(_ arguments: [String], stdin: Data? = nil, keepingStdinOpen: Bool = false, in directory: URL? = nil,
               environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> RunningCourier {
        try RunningCourier(executable: executable(file: file, line: line), arguments: arguments, directory: directory,
                           stdin: stdin, keepingStdinOpen: keepingStdinOpen, environment: environment)
    }

    /// The last request the server received for `path`.
    func lastRequest(to path: String, on server: TestServer, file: StaticString = #filePath, line: UInt = #line) throws -> ServerRequest {
        try XCTUnwrap(server.receivedRequests.last { $0.path == path }, "no request to \(path)", file: file, line: line)
    }

    /// A file of `content` in a fresh temporary folder.
    func makeFile(named name: String, content: Data) throws -> URL {
        let url = try makeTemporaryDirectory().appendingPathComponent(name)
        try content.write(to: url)
        return url
    }

    /// Serves `content` at `path` with Range/If-Range support.
    func serveFile(_ content: Data, at path: String, on server: TestServer, etag: String = "\"v1\"") throws {
        let file = try makeFile(named: "served.bin", content: content)
        server.route(path) { request, writer in
            writer.serveFile(at: file, etag: etag, request: request)
        }
    }

    /// Asserts a usage error: exit 2, the problem and the usage line on stderr, nothing on stdout.
    func assertUsageError(_ result: CLIResult, mentions text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 2, result.stderrText, file: file, line: line)
        XCTAssertTrue(result.stderrText.contains(text), "stderr does not mention \(text): \(result.stderrText)", file: file, line: line)
        XCTAssertTrue(result.stderrText.contains("usage: courier"), result.stderrText, file: file, line: line)
        XCTAssertEqual(result.stdout, Data(), file: file, line: line)
    }
}
