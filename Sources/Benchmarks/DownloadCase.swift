import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Case 2: one large body to a file. Raw `URLSession.downloadTask` against Courier's `download`;
/// `curl -o` is timed by scripts/bench itself. A fourth client, a raw delegate-based data task
/// writing each chunk to a file, is the URLSession path Courier's download is built on: it shows
/// which limits (speed, memory) belong to URLSession rather than to Courier.
///
/// Both clients first make one small request on the same session (`--warmup-url`), so the large
/// transfer runs on an open, reused connection as it would in a long-lived client. (On Linux the
/// first transfer on a new connection also keeps a core busy polling for write readiness; both
/// clients avoid that equally.)
enum DownloadCase {
    static func run(_ arguments: Arguments) {
        let engine = arguments.engine
        let client = arguments.choice("client", ["urlsession", "urlsession-data", "courier"])
        let url = arguments.url("url")
        let destination = arguments.fileURL("to")
        let warmupURL = arguments.optionalURL("warmup-url")
        try? FileManager.default.removeItem(at: destination)

        let stopwatch: Stopwatch
        switch client {
        case "urlsession":
            let delegate = DownloadDelegate(destination: destination)
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            if let warmupURL { warmUp(session, warmupURL) }
            stopwatch = Stopwatch()
            session.downloadTask(with: URLRequest(url: url)).resume()
            delegate.finished.wait()
            if let failure = delegate.failure.current { benchmarkFailure("downloadTask: \(failure)") }
        case "urlsession-data":
            let delegate = DataTaskFileDelegate(destination: destination)
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            if let warmupURL { warmUp(session, warmupURL) }
            stopwatch = Stopwatch()
            session.dataTask(with: URLRequest(url: url)).resume()
            delegate.finished.wait()
            if let failure = delegate.failure.current { benchmarkFailure("data task to a file: \(failure)") }
        default:
            // `--http 2 --cacert FILE`: the same download over HTTP/2 from nginx's TLS listener.
            let http = arguments.string("http", default: "")
            let authority = arguments.string("cacert", default: "")
            let version: HTTPVersionPreference? = switch http {
            case "": nil
            default: arguments.choice("http", ["1.1", "2"]) == "2" ? .http2 : .http1_1
            }
            let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "bench.callbacks"),
                                  maximumConcurrentRequests: 1, engine: engine,
                                  tls: authority.isEmpty ? TLSOptions() : TLSOptions(certificateAuthorities: URL(fileURLWithPath: authority)),
                                  connection: version.map { ConnectionOptions(httpVersion: $0) } ?? ConnectionOptions())
            if let warmupURL, case let .failure(error) = network.scheduleSynchronously(Request<Data>.get(warmupURL)) {
                benchmarkFailure("warm-up: \(error)")
            }
            stopwatch = Stopwatch()
            // No deadline: the figure is the transfer's, whatever the machine's disk does.
            let result = network.downloadSynchronously(Request<Data>(url: url, timeout: .infinity), to: destination,
                                                       options: [.replaceExisting, .noResume])
            if case let .failure(error) = result { benchmarkFailure("download: \(error)") }
        }
        let seconds = stopwatch.elapsedSeconds
        let cpu = stopwatch.cpuSeconds

        let bytes = fileSize(destination)
        let expected = arguments.int("expect-bytes", default: 0)  // 0: any size
        if expected > 0, bytes != expected {
            benchmarkFailure("\(destination.path) has \(bytes) bytes, expected \(expected)")
        }
        try? FileManager.default.removeItem(at: destination)

        var report = Report(case: "download", client: client)
        report["bytes"] = .int(bytes)
        report["seconds"] = .double(seconds)
        report["mb_per_second"] = .double(Double(bytes) / seconds / 1e6)
        report["cpu_seconds"] = .double(cpu)
        report["maxrss_bytes"] = .int(Measurement.peakRSSBytes())
        report.emit()
    }

    /// One small request on `session`, so that its connection is open before timing starts.
    static func warmUp(_ session: URLSession, _ url: URL) {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        session.dataTask(with: URLRequest(url: url)) { _, response, error in
            if let error { failure.withLock { $0 = "\(error)" } }
            else if (response as? HTTPURLResponse)?.statusCode != 200 { failure.withLock { $0 = "status not 200" } }
            done.signal()
        }.resume()
        done.wait()
        if let reason = failure.current { benchmarkFailure("warm-up: \(reason)") }
    }

    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}

/// The raw URLSession side of case 2: a session delegate that moves the finished file into place.
///
/// On Linux the delegate variant writes `TMPDIR/<UUID>.tmp` and never deletes it; moving it to
/// the destination is what removes it. scripts/bench points `TMPDIR` at the destination's folder
/// so the move is a rename, as it is for Courier's `.partial` file, not a 1 GB copy.
final class DownloadDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {  // used on the session's serial delegate queue only.
    let destination: URL
    let finished = DispatchSemaphore(value: 0)
    let failure = Locked<String?>(nil)
    /// Set on the delegate queue when the file has been moved; read after `finished`.
    private let moved = Locked(false)

    init(destination: URL) {
        self.destination = destination
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        do {
            try FileManager.default.moveItem(at: location, to: destination)
            moved.withLock { $0 = true }
        } catch {
            try? FileManager.default.removeItem(at: location)
            failure.withLock { $0 = "moving \(location.path): \(error)" }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode
        failure.withLock { failure in
            if failure != nil { return }
            if let error { failure = "\(error)" }
            else if status != 200 { failure = "status \(status.map(String.init) ?? "none")" }
            else if !moved.current { failure = "finished without a file" }
        }
        finished.signal()
    }
}

/// The reference client of case 2: a delegate-based data task appending every chunk to a file on
/// the session's delegate queue, with nothing else in between.
final class DataTaskFileDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // used on the session's serial delegate queue only.
    let destination: URL
    let finished = DispatchSemaphore(value: 0)
    let failure = Locked<String?>(nil)
    /// Confined to the session's serial delegate queue.
    private var handle: FileHandle?

    init(destination: URL) {
        self.destination = destination
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // Opening fails below if the file could not be created.
        _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
        handle = FileHandle(forWritingAtPath: destination.path)
        if handle == nil { failure.withLock { $0 = "cannot open \(destination.path)" } }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            try handle?.write(contentsOf: data)
        } catch {
            failure.withLock { $0 = $0 ?? "write: \(error)" }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        try? handle?.close()
        handle = nil
        let status = (task.response as? HTTPURLResponse)?.statusCode
        failure.withLock { failure in
            if failure != nil { return }
            if let error { failure = "\(error)" } else if status != 200 { failure = "status \(status.map(String.init) ?? "none")" }
        }
        finished.signal()
    }
}
