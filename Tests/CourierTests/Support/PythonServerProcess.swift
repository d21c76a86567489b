import Foundation

/// A loopback test server written in Python, run as a child process: the script prints its port
/// once it listens, and exits when its standard input closes, so it never outlives the test
/// process. Shared by ``TLSTestServer`` and ``H2ResetServer``.
final class PythonServerProcess: @unchecked Sendable {  // `process` is only driven from the test's thread.
    let port: Int
    private let process: Process

    /// Writes `script` to `file` and runs it with `arguments`; `what` names the server in the
    /// error thrown when it does not start (with what it printed on stderr).
    init(python: String, script: String, at file: URL, arguments: [String], what: String) throws {
        try Data(script.utf8).write(to: file)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [file.path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = Pipe()   // kept open while we live; its end stops the server
        try process.run()
        // The server prints its port once it listens; an early exit closes the pipe instead.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            process.waitUntilExit()
            let reason = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw TLSFixtureError("\(what) did not start: \(reason)")
        }
        self.port = port
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
