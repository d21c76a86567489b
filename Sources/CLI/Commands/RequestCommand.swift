import Courier
import Foundation

/// `courier [get|post|put|patch|delete|head] URL...`: curl's model. Each URL is a transfer of
/// its own with the same options (see ``TransferRun``), its body streamed to stdout or to the
/// file `-o` or `-O` gave it; one after another, or (`-Z`) up to `--parallel-max` at once.
///
/// The exit status is curl's: run one after another, that of the last transfer; in parallel,
/// that of the first (in the order of the line) that failed.
struct RequestCommand {
    let plan: RequestPlan
    let console: Console

    func run() -> ExitCode {
        if !plan.settings.silent { plan.warnings.forEach(console.message) }
        // -o and -O past the URLs are left unused, as curl leaves them, with its warning.
        if !plan.settings.silent, plan.hasMoreOutputsThanURLs { console.warning("Got more output options than URLs") }
        let session = Session(plan.settings, console: console)
        let cookiesFromStrings = plan.transfers.first.flatMap { plan.cookies?.install(in: session.cookieStorage, for: $0.url) } ?? []
        let headerDump = plan.dumpHeader.map { HeaderDump($0, console: console) }
        let display = ProgressDisplay(labels: plan.transfers.map(label), style: progressStyle, console: console)
        let trace = plan.trace.map { TraceFile(path: $0.path, style: $0.style, timed: $0.timed, console: console) }

        var exitCode: ExitCode
        if plan.jsonOutput, let transfer = plan.transfers.first {
            exitCode = fetchJSON(transfer, session: session, display: display, trace: trace)
        } else if plan.parallel, plan.transfers.count > 1 {
            exitCode = runInParallel(session: session, headerDump: headerDump, display: display, trace: trace)
        } else {
            exitCode = .ok
            var performed = 0
            for transfer in plan.transfers where !session.interrupts.isInterrupted {
                // --etag-save FILE is made before the transfer, as curl opens it; a file that
                // cannot be made skips the transfer, with curl's warning.
                if let path = plan.etagSave, path != "-", !ETagFile.create(path) {
                    if !plan.settings.silent { console.warning("Failed creating file for saving etags: \"\(path)\". Skip this transfer") }
                    continue
                }
                performed += 1
                exitCode = TransferRun(plan: plan, transfer: transfer, network: session.network, console: console,
                                       interrupts: session.interrupts, headerDump: headerDump, display: display,
                                       row: transfer.index, trace: trace).run()
                // --fail-early: the first failure ends the line, as in curl.
                if plan.failEarly, exitCode != .ok { break }
            }
            if performed == 0, !plan.transfers.isEmpty, !session.interrupts.isInterrupted {
                // curl's "no transfer performed": its read error.
                if !plan.settings.silent || plan.settings.showError { console.message("no transfer performed") }
                exitCode = .readError
            }
        }
        display.close()
        headerDump?.close()
        if session.interrupts.isInterrupted { exitCode = .interrupted }

        do throws(Failure) {
            // Saved whatever the outcome, as curl does: a failed login may still set cookies.
            try plan.cookies?.save(session.cookieStorage, excluding: cookiesFromStrings)
        } catch {
            console.message(error.message)
            if exitCode == .ok { exitCode = error.exitCode }
        }
        return exitCode
    }

    /// `-Z`: up to `--parallel-max` worker threads, each with a network of its own (so that its
    /// observers see its transfer alone), taking the next URL until none is left.
    private func runInParallel(session: Session, headerDump: HeaderDump?, display: ProgressDisplay, trace: TraceFile?) -> ExitCode {
        let results = Locked([ExitCode?](repeating: nil, count: plan.transfers.count))
        let next = Locked(0)
        let finished = DispatchGroup()
        let plan = self.plan
        let console = self.console
        for worker in 0..<min(plan.parallelMax, plan.transfers.count) {
            finished.enter()
            let network = worker == 0 ? session.network : session.makeNetwork()
            let thread = Thread {
                defer { finished.leave() }
                while !session.interrupts.isInterrupted, let index = Self.take(from: next, count: plan.transfers.count) {
                    let transfer = plan.transfers[index]
                    let exitCode = TransferRun(plan: plan, transfer: transfer, network: network, console: console,
                                               interrupts: session.interrupts, headerDump: headerDump, display: display,
                                               row: index, trace: trace).run()
                    results.withLock { $0[index] = exitCode }
                }
            }
            thread.name = "courier.transfer"
            thread.start()
        }
        finished.wait()
        return results.withLock { $0 }.compactMap { $0 }.first { $0 != .ok } ?? .ok
    }

    private static func take(from next: Locked<Int>, count: Int) -> Int? {
        next.withLock { index -> Int? in
            guard index < count else { return nil }
            defer { index += 1 }
            return index
        }
    }

    /// `--json-output`: the whole response, held (up to the library's in-memory limit), as one
    /// JSON object on stdout.
    private func fetchJSON(_ transfer: TransferPlan, session: Session, display: ProgressDisplay, trace: TraceFile?) -> ExitCode {
        var request = Request(method: plan.method, location: .url(transfer.url), headers: plan.headers.fields, body: plan.body,
                              authentication: plan.headers.authentication, timeout: plan.settings.timeout) { body, response in
            var response = response
            response.body = body
            return response
        }
        request.headerOrder = plan.headers.order
        request.acceptedStatusCodes = Set(100..<1000)
        session.network.observers = (plan.verbose ? [VerboseLog(console: console, start: .now())] : [])
            + (trace.map { [TraceLog(file: $0)] } ?? [])
        if plan.headers.isRemoved("User-Agent") { session.network.userAgent = nil }
        let result = session.network.scheduleSynchronously(request, progress: { display.update(0, $0) })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        if session.interrupts.isInterrupted {
            console.message("interrupted")
            return .interrupted
        }
        let printer = BodyPrinter(console: console, noBuffer: plan.noBuffer)
        do throws(Failure) {
            switch result {
            case let .success(response):
                // The status is in the JSON for the script; --fail still sets the exit status.
                try printer.printJSON(response)
                if plan.settings.fail || plan.failWithBody, response.statusCode >= 400 {
                    throw Failure(NetworkError.httpStatus(response), url: transfer.url, timeout: plan.settings.timeout)
                }
            case let .failure(error):
                throw Failure(error, url: transfer.url, timeout: plan.settings.timeout, connectTimeout: plan.settings.connectTimeout)
            }
        } catch {
            if !plan.settings.silent || plan.settings.showError { console.message(error.message) }
            return error.exitCode
        }
        return .ok
    }

    static func tooLarge(_ limit: Int64) -> Failure {
        Failure(.tooLarge, "the body is larger than --max-filesize (\(limit) bytes)")
    }

    /// Bars for files on a terminal; nothing while a body goes to the terminal, which would
    /// garble it; `-v` writes its own lines, so no bar between them unless asked.
    private var progressStyle: ProgressStyle {
        if plan.verbose, !plan.settings.progressRequested { return .none }
        let toStdout = plan.transfers.contains { $0.output == .stdout }
        if toStdout, console.stdoutIsTerminal { return .none }
        return ProgressStyle.choose(plan.settings, stderrIsTerminal: console.stderrIsTerminal, keepsBars: !toStdout)
    }

    /// What the progress display calls a transfer: its file's name, else the resource's, else the host.
    private func label(_ transfer: TransferPlan) -> String {
        if let path = transfer.output.knownPath { return URL(fileURLWithPath: path).lastPathComponent }
        let name = transfer.url.lastPathComponent
        return name.isEmpty || name == "/" ? (transfer.url.host ?? transfer.url.absoluteString) : name
    }

    static func state<Value>(of result: Result<Value, any Error>, interrupted: Bool) -> ProgressRow.State {
        switch result {
        case .success: return .done
        case .failure: return interrupted ? .interrupted : .failed
        }
    }
}
