import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Case 3: cancel a large transfer running at full loopback speed once about `--at-bytes` have
/// arrived. Two figures: how long `cancel()` takes to return to its caller, and how long until
/// the transfer's completion is delivered (both from the moment just before `cancel()`).
///
/// The cancel is triggered from where each client reports bytes: the raw session's
/// `didReceive data` (every chunk), and Courier's progress handler (throttled to ~20 events a
/// second, so it fires a little past the threshold; the actual byte count is reported).
enum CancelCase {
    /// What one run observed; times are monotonic nanoseconds.
    struct Observation {
        var bytesAtCancel: Int64 = 0
        var cancelStart: UInt64 = 0
        var cancelReturned: UInt64 = 0
        /// The cancelling thread's own CPU time in `cancel()`: wall time above it was the
        /// scheduler running other threads (on 2 cores, the transfer's two busy ones).
        var cancelCPU: UInt64 = 0
        /// What the cancelling thread waited for in `cancel()` (see ``Measurement/threadStalls()``).
        var cancelStalls = ThreadStalls()
        var completed: UInt64 = 0
        /// How the transfer ended: "cancelled", "succeeded" (ran to the end despite the cancel),
        /// or the error.
        var outcome = ""
    }

    static func run(_ arguments: Arguments) {
        let client = arguments.choice("client", ["urlsession", "courier", "courier-download"])
        let url = arguments.url("url")
        let threshold = Int64(arguments.int("at-bytes", default: 100 << 20))
        let warmupURL = arguments.optionalURL("warmup-url")
        // A cancel that never completes must still end the process with a result, not hang the suite.
        let limit = DispatchTime.now() + .seconds(arguments.int("limit-seconds", default: 120))

        let observation: Observation?
        var report = Report(case: "cancel", client: client)
        switch client {
        case "urlsession":
            let delegate = CancellingDelegate(threshold: threshold)
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            if let warmupURL { DownloadCase.warmUp(session, warmupURL) }
            session.dataTask(with: URLRequest(url: url)).resume()
            observation = delegate.finished.wait(timeout: limit) == .success ? delegate.observation.current : nil
            report["bytes_after_cancel"] = .int(Int(delegate.bytesAfterCancel.current))
        default:
            let destination = URL(fileURLWithPath: arguments.string("to", default: NSTemporaryDirectory() + "/courier-cancel.bin"))
            observation = runCourier(url: url, threshold: threshold, warmupURL: warmupURL, limit: limit,
                                     downloadTo: client == "courier-download" ? destination : nil, engine: arguments.engine)
            // The partial file and its sidecar are kept for a resume; this benchmark never resumes.
            for suffix in ["", ".partial", ".partial.json"] {
                try? FileManager.default.removeItem(atPath: destination.path + suffix)
            }
        }

        guard let observation else {
            benchmarkFailure("\(client): no completion within the time limit after cancelling")
        }
        guard observation.cancelStart > 0 else {
            benchmarkFailure("\(client): the transfer ended (\(observation.outcome)) before reaching \(threshold) bytes")
        }
        report["bytes_at_cancel"] = .int(Int(observation.bytesAtCancel))
        report["cancel_return_ms"] = .double(Double(observation.cancelReturned - observation.cancelStart) / 1e6)
        report["cancel_cpu_ms"] = .double(Double(observation.cancelCPU) / 1e6)
        report["cancel_waits"] = .int(observation.cancelStalls.waits)
        report["cancel_preemptions"] = .int(observation.cancelStalls.preemptions)
        report["cancel_page_faults"] = .int(observation.cancelStalls.pageFaults)
        report["completion_ms"] = .double(Double(observation.completed - observation.cancelStart) / 1e6)
        report["outcome"] = .string(observation.outcome)
        report["maxrss_bytes"] = .int(Measurement.peakRSSBytes())
        report.emit()
        // Exit at once: URLSession may still be winding the cancelled task down in the background.
        exit(0)
    }

    /// Courier: `schedule` (body in memory) or `download` (body to a file), cancelled from the
    /// progress handler, which runs on the network's callback queue like any app's would.
    private static func runCourier(
        url: URL, threshold: Int64, warmupURL: URL?, limit: DispatchTime, downloadTo destination: URL?, engine: Network.Engine
    ) -> Observation? {
        let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "bench.callbacks"),
                              maximumConcurrentRequests: 1, engine: engine)
        // The in-memory variant must be allowed to hold the bytes it receives before the cancel
        // (the default limit refuses a 1 GB body as soon as its length is announced).
        network.maximumResponseSize = .max
        if let warmupURL, case let .failure(error) = network.scheduleSynchronously(Request<Data>.get(warmupURL)) {
            benchmarkFailure("warm-up: \(error)")
        }
        let observation = Locked(Observation())
        let task = Locked<NetworkTask?>(nil)
        let finished = DispatchSemaphore(value: 0)

        let progress: @Sendable (TransferProgress) -> Void = { progress in
            guard progress.completedBytes >= threshold, observation.current.cancelStart == 0 else { return }
            let cancelling = task.current
            let stalls = Measurement.threadStalls()
            let cpu = Measurement.threadCPUNow()
            let start = Measurement.now()
            cancelling?.cancel()
            let returned = Measurement.now()
            let cpuSpent = Measurement.threadCPUNow() - cpu
            let stallsAfter = Measurement.threadStalls()
            observation.withLock {
                $0.bytesAtCancel = progress.completedBytes
                $0.cancelStart = start
                $0.cancelReturned = returned
                $0.cancelCPU = cpuSpent
                $0.cancelStalls = stallsAfter - stalls
            }
        }
        let completion: @Sendable (Result<Void, any Error>) -> Void = { result in
            let now = Measurement.now()
            observation.withLock {
                $0.completed = now
                switch result {
                case .success: $0.outcome = "succeeded"
                case .failure(NetworkError.cancelled): $0.outcome = "cancelled"
                case let .failure(error): $0.outcome = "\(error)"
                }
            }
            finished.signal()
        }

        let request = Request<Data>(url: url, timeout: .infinity)
        // The handle is stored before the first progress event can need it: at full speed the
        // first event comes after the response headers, long after `schedule` has returned.
        task.withLock { handle in
            if let destination {
                // Default resume behaviour: a cancelled download keeps its partial file for a resume,
                // which is what cancelling a download is for (removed after the measurement).
                handle = network.download(request, to: destination, options: [.replaceExisting],
                                          progress: progress) { completion($0.map { _ in }) }
            } else {
                handle = network.schedule(request, progress: progress) { completion($0.map { _ in }) }
            }
        }
        return finished.wait(timeout: limit) == .success ? observation.current : nil
    }
}

/// The raw URLSession side of case 3: counts bytes on the delegate queue and, at the threshold,
/// cancels the data task right there, on the thread where it decided to.
final class CancellingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // used on the session's serial delegate queue only.
    let threshold: Int64
    let finished = DispatchSemaphore(value: 0)
    let observation = Locked(CancelCase.Observation())
    /// Bytes URLSession still delivered after `cancel()` returned.
    let bytesAfterCancel = Locked<Int64>(0)
    /// Confined to the session's serial delegate queue.
    private var received: Int64 = 0
    private var cancelled = false

    init(threshold: Int64) {
        self.threshold = threshold
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received += Int64(data.count)
        if cancelled {
            bytesAfterCancel.withLock { $0 += Int64(data.count) }
            return
        }
        guard received >= threshold else { return }
        cancelled = true
        let stalls = Measurement.threadStalls()
        let cpu = Measurement.threadCPUNow()
        let start = Measurement.now()
        dataTask.cancel()
        let returned = Measurement.now()
        let cpuSpent = Measurement.threadCPUNow() - cpu
        let stallsAfter = Measurement.threadStalls()
        observation.withLock { [received] in
            $0.bytesAtCancel = received
            $0.cancelStart = start
            $0.cancelReturned = returned
            $0.cancelCPU = cpuSpent
            $0.cancelStalls = stallsAfter - stalls
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let now = Measurement.now()
        observation.withLock {
            $0.completed = now
            if let error = error as? URLError, error.code == .cancelled { $0.outcome = "cancelled" }
            else if let error { $0.outcome = "\(error)" }
            else { $0.outcome = "succeeded" }
        }
        finished.signal()
    }
}
