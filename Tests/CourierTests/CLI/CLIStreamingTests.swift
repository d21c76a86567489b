import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// `courier URL` streams the body to stdout: a file or a pipe gets it as it arrives with flat
/// memory, a pipe whose reader goes away ends the command as curl does (exit 23), Ctrl-C exits
/// 130 mid-stream, and a terminal (a pseudo-terminal here) still gets pretty-printed JSON unless
/// `-N` asks for every chunk as it comes.
final class CLIStreamingTests: CLITestCase {
    /// A `courier` process whose stdout goes where the test says, with stderr collected and its
    /// peak resident memory followed (VmHWM, polled from /proc until it exits).
    private final class Launched: @unchecked Sendable {  // `process` is driven by the test's thread only.
        let process = Process()
        private let stderr = Box<Data>(Data())
        private let peak = Box<Int>(0)
        private let exited = DispatchSemaphore(value: 0)
        private let drained = Gate()

        init(_ executable: URL, _ arguments: [String], stdout: Any) throws {
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = stdout
            let errors = Pipe()
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            process.terminationHandler = { [exited] _ in exited.signal() }
            try process.run()
            Thread { [stderr, drained] in
                stderr.value = errors.fileHandleForReading.readDataToEndOfFile()
                drained.open()
            }.start()
            let pid = process.processIdentifier
            Thread { [peak, process] in
                while process.isRunning {
                    if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                       let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                       let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") {
                        peak.mutate { $0 = max($0!, kilobytes * 1024) }
                    }
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }.start()
        }

        /// Waits for the exit (killing a hung process); the status, and whether a signal ended it.
        func finish(timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) -> (status: Int32, signalled: Bool) {
            if exited.wait(timeout: .now() + timeout) == .timedOut {
                XCTFail("courier did not exit within \(timeout) s; killed", file: file, line: line)
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            _ = drained.wait(timeout: 10)
            return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
        }

        var stderrText: String { String(decoding: stderr.value ?? Data(), as: UTF8.self) }
        var peakResidentMemory: Int { peak.value ?? 0 }
    }

    /// Reads a descriptor on a thread of its own, as the bytes come.
    private final class Reader: @unchecked Sendable {  // `data` is a Box.
        private let data = Box<Data>(Data())
        let ended = Gate()

        init(_ descriptor: Int32) {
            Thread { [data, ended] in
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }   // end of file; EIO for a terminal whose other side closed
                    data.mutate { $0!.append(contentsOf: buffer[0..<count]) }
                }
                ended.open()
            }.start()
        }

        var bytes: Data { data.value ?? Data() }
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// A pseudo-terminal in raw mode (no `\n` → `\r\n`): the child writes to `terminal`, the
    /// test reads `controller`.
    private func makeTerminal() throws -> (controller: Int32, terminal: FileHandle) {
        // glibc declares these only for _XOPEN_SOURCE, which the Glibc module is not built with.
        let libc = dlopen(nil, RTLD_NOW)
        typealias Open = @convention(c) (Int32) -> Int32
        typealias Prepare = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let openSymbol = dlsym(libc, "posix_openpt"), let grantSymbol = dlsym(libc, "grantpt"),
              let unlockSymbol = dlsym(libc, "unlockpt"), let nameSymbol = dlsym(libc, "ptsname") else {
            throw XCTSkip("no pseudo-terminal functions")
        }
        let controller = unsafeBitCast(openSymbol, to: Open.self)(O_RDWR | O_NOCTTY)
        guard controller >= 0, unsafeBitCast(grantSymbol, to: Prepare.self)(controller) == 0,
              unsafeBitCast(unlockSymbol, to: Prepare.self)(controller) == 0,
              let name = unsafeBitCast(nameSymbol, to: Name.self)(controller) else {
            throw XCTSkip("no pseudo-terminal available")
        }
        _ = fcntl(controller, F_SETFD, FD_CLOEXEC)
        let terminal = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { throw XCTSkip("cannot open the pseudo-terminal") }
        var settings = termios()
        tcgetattr(terminal, &settings)
        cfmakeraw(&settings)
        tcsetattr(terminal, TCSANOW, &settings)
        addTeardownBlock { _ = close(controller) }
        return (controller, FileHandle(fileDescriptor: terminal, closeOnDealloc: true))
    }

    private func launch(_ arguments: [String], stdout: Any) throws -> Launched {
        try Launched(try executable(), arguments, stdout: stdout)
    }

    /// Launches courier with SIGPIPE at its default action (which ends the process), through
    /// coreutils' `env`: this test process ignores SIGPIPE, and a child inherits that.
    private func launchWithDefaultSIGPIPE(_ arguments: [String], stdout: Any) throws -> Launched {
        let env = URL(fileURLWithPath: "/usr/bin/env")
        return try Launched(env, ["--default-signal=PIPE", try executable().path] + arguments, stdout: stdout)
    }

    // MARK: - Files and pipes

    func testAGigabyteToAFileWithFlatMemory() throws {
        let server = try makeServer()
        server.routePattern("/big", length: gigabyteTestSize, piece: 256 << 10)
        server.routePattern("/small", length: 1 << 10)
        // The same process's peak for a 1 KiB body: the runtime and the engine's own (FoundationNetworking
        // alone is ~38 MB here), which the large body must not grow by much.
        let baselineFile = try makeTemporaryDirectory().appendingPathComponent("small.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: baselineFile.path, contents: nil))
        let baselineHandle = try FileHandle(forWritingTo: baselineFile)
        let small = try launch([server.url("/small").absoluteString], stdout: baselineHandle)
        try baselineHandle.close()
        XCTAssertEqual(small.finish(timeout: 60).status, 0, small.stderrText)
        let baseline = small.peakResidentMemory
        let output = try makeTemporaryDirectory().appendingPathComponent("out.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: output.path, contents: nil))
        let file = try FileHandle(forWritingTo: output)
        let running = try launch([server.url("/big").absoluteString], stdout: file)
        try file.close()
        let (status, _) = running.finish(timeout: 600)
        XCTAssertEqual(status, 0, running.stderrText)
        let verifier = PatternVerifier()
        let reader = try FileHandle(forReadingFrom: output)
        defer { try? reader.close() }
        while let piece = try reader.read(upToCount: 4 << 20), !piece.isEmpty { verifier.consume(piece) }
        verifier.assertComplete(gigabyteTestSize)
        // Without streaming the whole body would sit in memory (and more than 100 MB was refused).
        // The peak is the whole process's (VmHWM). Its growth over the 1 KiB run is what the body
        // costs: measured 4-7 MiB on the curl engine, 10-28 MiB on URLSession (FoundationNetworking's
        // own buffers, which vary from run to run, 56 or 66 MB in all; an absolute 64 MiB bound
        // failed there on an unchanged build). Each engine is held to a bound with room over its
        // measured worst, both far below the 1 GiB body.
        let peak = running.peakResidentMemory
        print("courier URL > f, \(gigabyteTestSize >> 20) MiB: peak resident memory of the process \(peak >> 10) KB"
              + " (\(baseline >> 10) KB for 1 KiB)")
        if !isThreadSanitizerActive {
            XCTAssertGreaterThan(baseline, 0, "the baseline was measured")
            let allowedGrowth = Network().engine == .curl ? 16 << 20 : 48 << 20
            XCTAssertLessThan(peak - baseline, allowedGrowth, "peak \(peak >> 10) KB, baseline \(baseline >> 10) KB")
        }
    }

    func testOutputDashIsStdout() throws {
        let server = try makeServer()
        server.routePattern("/body", length: 3 << 20)
        let result = try courier("-o", "-", server.url("/body").absoluteString)
        XCTAssertEqual(result.status, 0, result.stderrText)
        XCTAssertEqual(result.stdout, PatternBody.bytes(at: 0, count: 3 << 20))
    }

    /// curl's behaviour, checked with curl 7.88.1 (`curl URL | head -c 10; echo ${PIPESTATUS[0]}`
    /// gives 23, "Failure writing output to destination"): the write fails with EPIPE, and
    /// courier reports it and exits 23. SIGPIPE does not kill it.
    func testAPipeWhoseReaderGoesAwayExits23() throws {
        let server = try makeServer()
        let rest = Gate()
        addTeardownBlock { rest.open() }
        server.routePattern("/big", length: 256 << 20, hold: (offset: 128 << 20, gate: rest))
        let pipe = Pipe()
        let running = try launchWithDefaultSIGPIPE([server.url("/big").absoluteString], stdout: pipe)
        try pipe.fileHandleForWriting.close()
        // `head -c 10`: read 10 bytes, then go.
        let first = try pipe.fileHandleForReading.read(upToCount: 10)
        XCTAssertEqual(first, PatternBody.bytes(at: 0, count: 10))
        try pipe.fileHandleForReading.close()
        let (status, signalled) = running.finish()
        XCTAssertFalse(signalled, "killed by a signal (SIGPIPE)")
        XCTAssertEqual(status, 23, running.stderrText)
        XCTAssertEqual(running.stderrText, "courier: cannot write to stdout: Broken pipe\n")
    }

    func testCtrlCMidStreamExits130AfterWritingWhatArrived() throws {
        let server = try makeServer()
        let rest = Gate()
        addTeardownBlock { rest.open() }
        server.routePattern("/slow", length: 8 << 20, hold: (offset: 1 << 20, gate: rest))
        let pipe = Pipe()
        let running = try launch([server.url("/slow").absoluteString], stdout: pipe)
        try pipe.fileHandleForWriting.close()
        let output = Reader(pipe.fileHandleForReading.fileDescriptor)
        // The first MiB reaches stdout while the rest has not even been sent.
        XCTAssertTrue(waitUntil(timeout: 30) { output.bytes.count == 1 << 20 })
        running.process.interrupt()
        let (status, _) = running.finish()
        XCTAssertTrue(output.ended.wait(timeout: 10))
        XCTAssertEqual(status, 130, running.stderrText)
        XCTAssertEqual(running.stderrText, "courier: interrupted\n")
        XCTAssertEqual(output.bytes, PatternBody.bytes(at: 0, count: 1 << 20))
    }

    // MARK: - A terminal

    /// A JSON body in two parts, the second sent only once `release` opens.
    private func routeSplitJSON(on server: TestServer, release: Gate) {
        server.route("/json") { _, writer in
            let parts = [#"{"a":1,"#, #""b":[true,null]}"#].map { Data($0.utf8) }
            writer.writeHead(status: 200, headers: [("Content-Type", "application/json"), ("Content-Length", String(parts[0].count + parts[1].count))])
            writer.write(parts[0])
            release.wait(timeout: 30)
            writer.write(parts[1])
        }
    }

    func testNoBufferWritesJSONToATerminalAsItArrives() throws {
        let server = try makeServer()
        let release = Gate()
        addTeardownBlock { release.open() }
        routeSplitJSON(on: server, release: release)
        let (controller, terminal) = try makeTerminal()
        let running = try launch(["-N", server.url("/json").absoluteString], stdout: terminal)
        try terminal.close()
        let output = Reader(controller)
        // The first part shows before the server has sent the rest: nothing held back.
        XCTAssertTrue(waitUntil(timeout: 30) { output.text == #"{"a":1,"# })
        release.open()
        XCTAssertEqual(running.finish().status, 0, running.stderrText)
        XCTAssertTrue(output.ended.wait(timeout: 10))
        XCTAssertEqual(output.text, #"{"a":1,"b":[true,null]}"# + "\n")
    }

    func testJSONOnATerminalIsStillPrettyPrinted() throws {
        let server = try makeServer()
        let release = Gate()
        release.open()
        routeSplitJSON(on: server, release: release)
        let (controller, terminal) = try makeTerminal()
        let running = try launch([server.url("/json").absoluteString], stdout: terminal)
        try terminal.close()
        let output = Reader(controller)
        XCTAssertEqual(running.finish().status, 0, running.stderrText)
        XCTAssertTrue(output.ended.wait(timeout: 10))
        XCTAssertEqual(output.text, "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}\n")
    }

    func testJSONTooLargeToHoldGoesToATerminalAsItIs() throws {
        let server = try makeServer()
        // Over the 4 MiB held for pretty-printing.
        let numbers = (0..<700_000).map(String.init).joined(separator: ",")
        let body = Data("[\(numbers)]".utf8)
        XCTAssertGreaterThan(body.count, 4 << 20)
        server.route("/big.json") { _, writer in writer.respond(status: 200, headers: ["Content-Type": "application/json"], body: body) }
        let (controller, terminal) = try makeTerminal()
        let running = try launch([server.url("/big.json").absoluteString], stdout: terminal)
        try terminal.close()
        let output = Reader(controller)
        XCTAssertEqual(running.finish().status, 0, running.stderrText)
        XCTAssertTrue(output.ended.wait(timeout: 30))
        XCTAssertEqual(output.bytes, body + Data("\n".utf8))
    }

    func testABinaryBodyIsNotShownOnATerminal() throws {
        let server = try makeServer()
        server.route("/blob") { _, writer in writer.respond(status: 200, body: Data("text, then".utf8) + Data([0, 1, 2])) }
        let (controller, terminal) = try makeTerminal()
        let running = try launch([server.url("/blob").absoluteString], stdout: terminal)
        try terminal.close()
        let output = Reader(controller)
        XCTAssertEqual(running.finish().status, 0, running.stderrText)
        XCTAssertTrue(output.ended.wait(timeout: 10))
        XCTAssertEqual(output.text, "")
        XCTAssertTrue(running.stderrText.contains("binary output not shown on a terminal"), running.stderrText)
    }
}
