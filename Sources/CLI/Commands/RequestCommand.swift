import Courier
import Foundation

/// `courier [get|post|put|patch|delete|head] URL`: one request, its body streamed to stdout or
/// to a file.
struct RequestCommand {
    let plan: RequestPlan
    let console: Console

    /// How the request ended: the exit status, the message explaining a failure (printed once,
    /// and `-w`'s `%{errormsg}`), and the body bytes received when a response came.
    struct Outcome {
        var exitCode: ExitCode = .ok
        var message: String?
        var bodySize: Int64?

        static func failed(_ failure: Failure, bodySize: Int64? = nil) -> Outcome {
            Outcome(exitCode: failure.exitCode, message: failure.message, bodySize: bodySize)
        }
    }

    func run() -> ExitCode {
        let started = DispatchTime.now()
        let session = Session(plan.settings, console: console)
        let record = TransferRecord()
        session.network.observers = [record] + (plan.verbose ? [VerboseLog(console: console, start: started)] : [])
        if let limit = plan.maxFilesize {
            session.network.maximumResponseSize = min(limit, session.network.maximumResponseSize)
        }
        let cookiesFromStrings = plan.cookies?.install(in: session.cookieStorage, for: plan.url) ?? []

        var outcome = plan.output.map { save(to: $0, session: session) } ?? fetch(session: session)
        let totalTime = TimeInterval(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9

        if let message = outcome.message { console.message(message) }
        do throws(Failure) {
            // Saved whatever the outcome, as curl does: a failed login may still set cookies.
            try plan.cookies?.save(session.cookieStorage, excluding: cookiesFromStrings)
        } catch {
            console.message(error.message)
            if outcome.exitCode == .ok { outcome = .failed(error) }
        }
        if let writeOut = plan.writeOut {
            let facts = record.current
            let report = WriteOut.Report(
                statusCode: facts.statusCode, contentType: facts.contentType, downloadSize: outcome.bodySize ?? facts.bodyBytes,
                totalTime: totalTime, effectiveURL: facts.url ?? plan.url, method: facts.method ?? plan.method.rawValue,
                redirectCount: facts.redirects, retryCount: facts.retries, exitCode: outcome.exitCode, errorMessage: outcome.message,
                metrics: facts.metrics, httpVersion: facts.httpVersion)
            do throws(Failure) {
                try console.writeOut(Data(writeOut.render(report).utf8))
            } catch {
                console.message(error.message)
                if outcome.exitCode == .ok { outcome = .failed(error) }
            }
        }
        return outcome.exitCode
    }

    /// The body to stdout: streamed as it arrives, or (`--json-output`) the whole response as JSON.
    private func fetch(session: Session) -> Outcome {
        plan.jsonOutput ? fetchJSON(session: session) : printBody(session: session)
    }

    /// The body to stdout, written as it arrives (see ``BodyPrinter``): no size limit of its own,
    /// memory stays flat, and a slow reader of the pipe slows the transfer down.
    ///
    /// Every status is accepted and printed, as in curl, unless `--fail` refuses those from 400
    /// on; the refused response then comes back as an error with (the start of) its body.
    /// `--max-filesize` refuses a body that announces more, before printing any of it, and stops
    /// one that turns out larger.
    private func printBody(session: Session) -> Outcome {
        // On a terminal the body itself shows the progress: a bar there would garble it.
        let style = console.stdoutIsTerminal ? ProgressStyle.none : progressStyle(keepsBars: false)
        let display = ProgressDisplay(labels: [label], style: style, console: console)
        let printer = BodyPrinter(console: console, noBuffer: plan.noBuffer)
        var request = self.request { body, _ in body }
        request.acceptedStatusCodes = Self.printedStatuses(fail: plan.settings.fail, retryPolicy: session.network.retryPolicy)
        let limit = plan.maxFilesize
        var started = false
        var received: Int64 = 0
        let result = session.network.streamSynchronously(request, onResponse: { response in
            if let limit, response.expectedContentLength > limit { throw Self.tooLarge(limit) }
            started = true
            try printer.begin(response, includeHead: plan.includeHeaders)
        }, onData: { chunk in
            received += Int64(chunk.count)
            if let limit, received > limit { throw Self.tooLarge(limit) }
            try printer.write(chunk)
        }, progress: { display.update(0, $0) })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        display.close()
        if session.interrupts.isInterrupted { return Outcome(exitCode: .interrupted, message: "interrupted", bodySize: received) }

        do throws(Failure) {
            switch result {
            case .success:
                do {
                    try printer.finish()
                } catch let failure as Failure {
                    throw failure
                } catch {
                    break   // BodyPrinter.Stop: the notice is out
                }
            case .failure(is BodyPrinter.Stop):
                break
            case let .failure(failure as Failure):
                throw failure   // stdout could not be written, or --max-filesize
            case let .failure(NetworkError.httpStatus(response)):
                // With --fail, or a status retried to the end: printed whole from the error (the
                // library keeps the first MiB of an error page), or refused with exit 22.
                received = Int64(response.body.count)
                try failIfAsked(response, printer: printer, includeHead: plan.includeHeaders, includeBody: plan.method != .head)
                do {
                    try printer.begin(response, includeHead: plan.includeHeaders)
                    if plan.method != .head { try printer.write(response.body) }
                    try printer.finish()
                } catch let failure as Failure {
                    throw failure
                } catch {
                    break   // BodyPrinter.Stop: the notice is out
                }
            case let .failure(error):
                if started { printer.flushAfterFailure() }
                throw failure(error)
            }
        } catch {
            return .failed(error, bodySize: received)
        }
        return Outcome(bodySize: received)
    }

    /// The statuses streamed to stdout as they are: all of them, as curl does, but those from 400
    /// with `--fail`, and those the retry policy retries (a streamed status could not be retried);
    /// the last of those comes back as an error and is printed from it.
    static func printedStatuses(fail: Bool, retryPolicy: RetryPolicy) -> Set<Int> {
        let all = Set(100..<(fail ? 400 : 1000))
        return retryPolicy.maxAttempts > 1 ? all.subtracting(retryPolicy.retryableStatusCodes) : all
    }

    /// `--json-output`: the whole response, held (up to the library's in-memory limit), as one
    /// JSON object on stdout.
    private func fetchJSON(session: Session) -> Outcome {
        let style = progressStyle(keepsBars: false)
        let display = ProgressDisplay(labels: [label], style: style, console: console)
        let result = session.network.scheduleSynchronously(request { body, response in
            var response = response
            response.body = body
            return response
        }, progress: { display.update(0, $0) })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        display.close()
        if session.interrupts.isInterrupted { return Outcome(exitCode: .interrupted, message: "interrupted") }

        let printer = BodyPrinter(console: console, noBuffer: plan.noBuffer)
        var bodySize: Int64?
        do throws(Failure) {
            switch result {
            case let .success(response):
                bodySize = Int64(response.body.count)
                try printer.printJSON(response)
            case let .failure(NetworkError.httpStatus(response)):
                bodySize = Int64(response.body.count)
                // The status is in the JSON for the script; --fail still sets the exit status.
                try printer.printJSON(response)
                try failIfAsked(response, printer: nil, includeHead: false, includeBody: false)
            case let .failure(error):
                throw failure(error)
            }
        } catch {
            return .failed(error, bodySize: bodySize)
        }
        return Outcome(bodySize: bodySize)
    }

    /// `-o FILE`: streamed to disk through a `.partial` file, so a large body never sits in
    /// memory, and an interrupted `get` resumes when run again. A device or FIFO (`-o /dev/null`)
    /// is written directly, as curl does: the library never replaces one. A link (`-o /dev/stdout`)
    /// is opened through, as curl opens it (see ``saveThroughLink(_:session:)``).
    private func save(to file: URL, session: Session) -> Outcome {
        if OutputPath.isLink(file) { return saveThroughLink(file, session: session) }
        let style = progressStyle(keepsBars: true)
        let display = ProgressDisplay(labels: [file.lastPathComponent], style: style, console: console)
        // Only a GET can safely be resumed with a Range request, and only when the request
        // does not name a range of its own (-r); anything else starts afresh.
        let resumable = plan.method == .get && !plan.headers.contains("Range")
        let options: DownloadOptions = resumable ? [.replaceExisting] : [.replaceExisting, .noResume]
        let sizeGuard = FileSizeGuard(limit: plan.maxFilesize, network: session.network)
        let result = session.network.downloadSynchronously(request { body, _ in body }, to: file, options: options,
                                                           progress: { progress in
                                                               sizeGuard.check(progress)
                                                               display.update(0, progress)
                                                           })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        display.close()
        if sizeGuard.exceeded, let limit = plan.maxFilesize {
            // The guard cancels from the progress handler, on its own queue: a small body can be
            // complete (and moved into place) before that cancel lands. A body over the limit is
            // never left behind as the result, whichever came first.
            if case let .success(saved) = result, !DownloadFiles.isSpecialFile(saved) { try? FileManager.default.removeItem(at: saved) }
            return .failed(Self.tooLarge(limit))
        }
        if session.interrupts.isInterrupted {
            return Outcome(exitCode: .interrupted, message: plan.method == .get ? "interrupted; run the same command again to resume" : "interrupted")
        }

        var bodySize: Int64?
        do throws(Failure) {
            switch result {
            case let .success(saved):
                bodySize = (try? FileManager.default.attributesOfItem(atPath: saved.path)[.size] as? NSNumber)?.int64Value
            case let .failure(NetworkError.httpStatus(response)):
                bodySize = Int64(response.body.count)
                try failIfAsked(response, printer: BodyPrinter(console: console, noBuffer: plan.noBuffer), includeHead: false, includeBody: true)
                // Without --fail the error page is saved, as curl does; the library keeps it out of
                // the `.partial` file, so it is written here, by the same rules as a download.
                do throws(NetworkError) {
                    try DownloadFiles.save(response.body, to: file)
                } catch {
                    throw Failure(error, url: plan.url, timeout: plan.settings.timeout)
                }
            case let .failure(error):
                throw failure(error)
            }
        } catch {
            return .failed(error, bodySize: bodySize)
        }
        return Outcome(bodySize: bodySize)
    }

    /// With `--fail`, an HTTP error status prints the response to stderr (unless `printer` is
    /// `nil`) and ends the command (exit 22); without it, the caller goes on to treat the error
    /// page as output.
    func failIfAsked(_ response: HTTPResponse, printer: BodyPrinter?, includeHead: Bool, includeBody: Bool) throws(Failure) {
        guard plan.settings.fail, response.statusCode >= 400 else { return }
        printer?.printResponseToStderr(response, includeHead: includeHead, includeBody: includeBody)
        throw Failure(NetworkError.httpStatus(response), url: plan.url, timeout: plan.settings.timeout)
    }

    /// The failure for `error`; a body past `--max-filesize` is named as such.
    func failure(_ error: any Error) -> Failure {
        if let limit = plan.maxFilesize, case let .responseTooLarge(reached)? = error as? NetworkError, reached == limit {
            return Self.tooLarge(limit)
        }
        return Failure(error, url: plan.url, timeout: plan.settings.timeout, connectTimeout: plan.settings.connectTimeout)
    }

    static func tooLarge(_ limit: Int64) -> Failure {
        Failure(.tooLarge, "the body is larger than --max-filesize (\(limit) bytes)")
    }

    /// `-v` writes its own lines to stderr: no progress bar between them unless asked.
    func progressStyle(keepsBars: Bool) -> ProgressStyle {
        if plan.verbose, !plan.settings.progressRequested { return .none }
        return ProgressStyle.choose(plan.settings, stderrIsTerminal: console.stderrIsTerminal, keepsBars: keepsBars)
    }

    func request<Output: Sendable>(
        _ output: @escaping @Sendable (Data, HTTPResponse) throws -> Output
    ) -> Request<Output> {
        Request(method: plan.method, location: .url(plan.url), headers: plan.headers.fields, body: plan.body,
                authentication: plan.headers.authentication, timeout: plan.settings.timeout, output: output)
    }

    /// What the progress display calls the transfer: the resource's name, else the host.
    var label: String {
        let name = plan.url.lastPathComponent
        return name.isEmpty || name == "/" ? (plan.url.host ?? plan.url.absoluteString) : name
    }

    static func state<Value>(of result: Result<Value, any Error>, interrupted: Bool) -> ProgressRow.State {
        switch result {
        case .success: return .done
        case .failure: return interrupted ? .interrupted : .failed
        }
    }
}
