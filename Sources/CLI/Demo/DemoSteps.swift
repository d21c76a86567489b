import Courier
import Foundation

/// The five steps of `courier demo` (see ``DemoCommand``). Each prints what it does and the
/// library call that does it, on stdout, and throws a ``Failure`` naming the step if it fails.
struct DemoSteps {
    let network: Network
    let server: DemoServer
    let trace: DemoTrace
    let folder: URL
    let console: Console
    let progress: ProgressStyle

    private var destination: URL { folder.appendingPathComponent("demo.bin") }
    private var partial: URL { folder.appendingPathComponent("demo.bin.partial") }
    private var sidecar: URL { folder.appendingPathComponent("demo.bin.partial.json") }

    /// The request the download steps send; the body is large, so the deadline is generous.
    private var bodyRequest: Request<Data> {
        Request(url: server.url("/demo.bin"), timeout: 120)
    }

    // MARK: - 1. One GET

    func get() throws(Failure) {
        let url = server.url("/hello")
        try heading(1, "One GET, shown as `courier -i \(url.absoluteString)` shows it",
                    "network.scheduleSynchronously(Request<Data>.get(url).withResponse())")
        let response = try outcome(of: network.scheduleSynchronously(Request<Data>.get(url).withResponse()), step: 1)
        var head = response.response
        head.body = Data()
        let shown = response.value.prefix(200)
        let body = String(decoding: shown, as: UTF8.self) + (response.value.count > shown.count ? "…" : "")
        // As `courier -i` prints it, with the wire's CRLF made plain newlines for the reader.
        let headText = String(decoding: HeadText.bytes(of: head), as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        try say("\n" + headText + body + "\n\n")
    }

    // MARK: - 2 and 3. Download, cancel half-way

    /// Starts the download with a progress bar, and cancels it from the progress handler once
    /// half the bytes are in.
    func download() throws(Failure) {
        try heading(2, "Download \(Units.bytes(DemoBody.size)) to a temporary file, with progress",
                    "network.download(request, to: \(destination.path), progress: { … }) { result in … }")
        let display = ProgressDisplay(labels: ["demo.bin"], style: progress, console: console)
        let task = Locked<NetworkTask?>(nil)
        let halfway = Locked(false)
        let cancelledAt = Locked<UInt64?>(nil)
        let result = Locked<Result<URL, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = DispatchTime.now().uptimeNanoseconds
        let scheduled = network.download(bodyRequest, to: destination, options: .replaceExisting, progress: { progress in
            display.update(0, progress)
            guard progress.completedBytes >= DemoBody.size / 2 else { return }
            // The task is kept below; a progress event could come first, hence the flag.
            halfway.withLock { $0 = true }
            cancelledAt.withLock { $0 = $0 ?? DispatchTime.now().uptimeNanoseconds }
            task.current?.cancel()
        }, completion: { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        })
        task.withLock { $0 = scheduled }
        if halfway.current { scheduled.cancel() }
        done.wait()
        let ended = DispatchTime.now().uptimeNanoseconds
        let cancelCall = cancelledAt.current ?? ended
        let cancelled: Bool
        if case .failure(NetworkError.cancelled)? = result.current { cancelled = true } else { cancelled = false }
        display.finish(0, cancelled ? .interrupted : .failed)
        display.close()

        try say("\n")
        try heading(3, "Cancel it half-way: the partial file is kept", "task.cancel()   (from the progress handler, at 50%)")
        switch result.current {
        case .failure(NetworkError.cancelled)?:
            break
        case .success?:
            throw stepFailed(3, "the download completed before the cancel landed")
        case let .failure(error)?:
            throw stepFailed(3, Failure(error, url: server.url("/demo.bin"), timeout: nil).message)
        case nil:
            throw stepFailed(3, "the download ended without a result")
        }
        let kept = size(of: partial)
        guard let kept, kept > 0, kept < DemoBody.size else {
            throw stepFailed(3, "expected a partial file with some of the bytes, found \(kept.map { "\($0) bytes" } ?? "none")")
        }
        guard FileManager.default.fileExists(atPath: sidecar.path), !FileManager.default.fileExists(atPath: destination.path) else {
            throw stepFailed(3, "expected \(sidecar.lastPathComponent) beside the partial file, and no \(destination.lastPathComponent) yet")
        }
        let elapsed = Double(cancelCall - started) / 1e9
        let latency = Double(ended - min(cancelCall, ended)) / 1e9
        try detail("cancelled at \(Units.bytes(kept)) of \(Units.bytes(DemoBody.size)), \(DemoConventions.time(elapsed)) in; "
            + "NetworkError.cancelled came \(DemoConventions.time(latency)) after cancel()")
        try detail("kept: \(partial.lastPathComponent) (\(Self.grouped(kept)) bytes) and \(sidecar.lastPathComponent) "
            + "(the URL and ETag to resume from)")
        try say("\n")
    }

    // MARK: - 4. Resume, verify

    func resume() throws(Failure) {
        try heading(4, "Resume: the same download again asks for the rest only, then the bytes are checked",
                    "network.downloadSynchronously(request, to: \(destination.path), progress: { … })")
        let offset = size(of: partial) ?? 0
        let display = ProgressDisplay(labels: ["demo.bin"], style: progress, console: console)
        let result = network.downloadSynchronously(bodyRequest, to: destination, options: .replaceExisting,
                                                   progress: { display.update(0, $0) })
        display.finish(0, (try? result.get()) != nil ? .done : .failed)
        display.close()
        _ = try outcome(of: result, step: 4)

        guard let asked = server.routes.lastRangeRequest, let answer = trace.lastResponse, answer.statusCode == 206 else {
            throw stepFailed(4, "the download started over instead of resuming (no Range request, or no 206)")
        }
        let fileSize = size(of: destination) ?? -1
        let local = try checksum(of: destination)
        let remote = try serverChecksum()
        try say("\n")
        try detail("sent:      \(asked)   (\(Self.grouped(offset)) bytes were on disk)")
        try detail("received:  \(answer.statusCode) \(ReasonPhrase.text(for: answer.statusCode)), "
            + "Content-Range: \(answer.headers["Content-Range"] ?? "none")")
        try detail("demo.bin:  \(Self.grouped(fileSize)) bytes, checksum \(DemoChecksum.hex(local)) (FNV-1a 64 over 8-byte words)")
        try detail("server's:  checksum \(DemoChecksum.hex(remote))" + (local == remote ? ": identical, byte for byte" : ": different"))
        guard fileSize == DemoBody.size else {
            throw stepFailed(4, "demo.bin has \(fileSize) bytes, not \(DemoBody.size)")
        }
        guard local == remote else {
            throw stepFailed(4, "the checksum of demo.bin, \(DemoChecksum.hex(local)), is not the server's, \(DemoChecksum.hex(remote)): "
                + "the bytes differ")
        }
        try say("\n")
    }

    private func checksum(of file: URL) throws(Failure) -> UInt64 {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw stepFailed(4, "cannot read \(file.path)")
        }
        defer { try? handle.close() }
        var checksum = DemoChecksum()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                checksum.update(chunk)
            }
        } catch {
            throw stepFailed(4, "cannot read \(file.path): \(Failure.describe(error))")
        }
        return checksum.value
    }

    private func serverChecksum() throws(Failure) -> UInt64 {
        let text = try outcome(of: network.scheduleSynchronously(Request<Data>.get(server.url("/demo.bin.checksum")).string()), step: 4)
        let digits = text.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2)
        guard let value = UInt64(digits, radix: 16) else { throw stepFailed(4, "the server's checksum reads '\(text)'") }
        return value
    }

    // MARK: - 5. Three conventions

    func conventions() throws(Failure) {
        let request = Request<Data>.get(server.url("/hello")).withResponse()
        try heading(5, "One request, three calling conventions, each timed",
                    "let request = Request<Data>.get(url).withResponse()   // GET /hello")
        let runs = DemoConventions.runAll(request, on: network)
        let width = runs.map(\.call.count).max() ?? 0
        var lines = ""
        for run in runs {
            let response = try outcome(of: run.result, step: 5)
            let call = run.call.padding(toLength: width, withPad: " ", startingAt: 0)
            lines += "      \(run.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(call)   "
                + "\(DemoConventions.summary(of: response)), \(DemoConventions.time(run.seconds))\n"
        }
        try say(lines + "\n")
    }

    // MARK: - Output

    private func heading(_ step: Int, _ title: String, _ call: String) throws(Failure) {
        try say("[\(step)/5] \(title)\n      \(call)\n")
    }

    /// A line of what a step found, under its heading.
    private func detail(_ text: String) throws(Failure) {
        try say("      " + text + "\n")
    }

    private func say(_ text: String) throws(Failure) {
        try console.writeOut(Data(text.utf8))
    }

    private func outcome<Value>(of result: Result<Value, any Error>, step: Int) throws(Failure) -> Value {
        switch result {
        case let .success(value):
            return value
        case let .failure(error):
            throw stepFailed(step, Failure(error, url: nil, timeout: nil).message)
        }
    }

    private func stepFailed(_ step: Int, _ reason: String) -> Failure {
        Failure(.failure, "demo step \(step) of 5 failed: \(reason)")
    }

    /// `50,593,792`.
    static func grouped(_ value: Int64) -> String {
        var digits = String(value.magnitude)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(digits.suffix(3), at: 0)
            digits.removeLast(3)
        }
        groups.insert(Substring(digits), at: 0)
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }

    private func size(of file: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
    }
}
