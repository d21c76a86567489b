import Courier
import Foundation

/// `courier download URL...`: files saved to disk, up to `--max-concurrent` at a time, each
/// resumable from the `.partial` file an interrupted run leaves behind.
///
/// Each download is one blocking call on a worker thread: the blocking API keeps each worker a
/// plain loop, and the network's own limit is set to the same number as the workers.
struct DownloadCommand {
    let plan: DownloadPlan
    let console: Console

    func run() -> ExitCode {
        let session = Session(plan.settings, console: console)
        let items = plan.items
        let style = ProgressStyle.choose(plan.settings, stderrIsTerminal: console.stderrIsTerminal, keepsBars: true)
        let display = ProgressDisplay(labels: items.map(\.destination.lastPathComponent), style: style, console: console)
        let results = Locked([Result<URL, any Error>?](repeating: nil, count: items.count))
        let nextIndex = Locked(0)
        let plan = self.plan

        // A worker that finds the run interrupted takes no further item: those never start.
        let finished = DispatchGroup()
        for _ in 0..<min(items.count, plan.settings.maxConcurrent) {
            finished.enter()
            let worker = Thread {
                defer { finished.leave() }
                while !session.interrupts.isInterrupted, let index = Self.take(from: nextIndex, count: items.count) {
                    let item = items[index]
                    var request = Request<Data>(url: item.url, headers: plan.headers.fields,
                                                authentication: plan.headers.authentication, timeout: plan.settings.timeout)
                    request.headerOrder = plan.headers.order
                    let result = session.network.downloadSynchronously(request, to: item.destination, options: plan.options,
                                                                       progress: { display.update(index, $0) })
                    results.withLock { $0[index] = result }
                    display.finish(index, RequestCommand.state(of: result, interrupted: session.interrupts.isInterrupted))
                }
            }
            worker.name = "courier.download"
            worker.start()
        }
        finished.wait()
        display.close()

        if session.interrupts.isInterrupted {
            console.message("interrupted; partial files are kept, run the same command again to resume")
            return .interrupted
        }
        return report(results.withLock { $0 })
    }

    /// One line per failed file, in the order given; the exit status is the first failure's.
    private func report(_ results: [Result<URL, any Error>?]) -> ExitCode {
        var exitCode = ExitCode.ok
        var failures = 0
        for (item, result) in zip(plan.items, results) {
            guard case let .failure(error)? = result else { continue }
            let failure = Failure(error, url: item.url, timeout: plan.settings.timeout, connectTimeout: plan.settings.connectTimeout)
            console.message("\(item.destination.lastPathComponent): \(failure.message)")
            if exitCode == .ok { exitCode = failure.exitCode }
            failures += 1
        }
        if failures > 0, plan.items.count > 1 {
            console.message("\(plan.items.count - failures) of \(plan.items.count) files downloaded")
        }
        return exitCode
    }

    private static func take(from next: Locked<Int>, count: Int) -> Int? {
        next.withLock { index -> Int? in
            guard index < count else { return nil }
            defer { index += 1 }
            return index
        }
    }
}
