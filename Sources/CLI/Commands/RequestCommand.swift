import Courier
import Foundation

/// `courier [get|post|put|patch|delete|head] URL`: one request, its body on stdout or in a file.
struct RequestCommand {
    let plan: RequestPlan
    let console: Console

    /// How the request ended: the exit status, the message explaining a failure (printed once,
    /// and `-w`'s `%{errormsg}`), and the body bytes received when a response came.
    private struct Outcome {
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
                redirectCount: facts.redirects, retryCount: facts.retries, exitCode: outcome.exitCode, errorMessage: outcome.message)
            do throws(Failure) {
                try console.writeOut(Data(writeOut.render(report).utf8))
            } catch {
                console.message(error.message)
                if outcome.exitCode == .ok { outcome = .failed(error) }
            }
        }
        return outcome.exitCode
    }

    /// The body to stdout (or, with `--json-output`, the whole response as JSON).
    private func fetch(session: Session) -> Outcome {
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

        let printer = BodyPrinter(console: console)
        let includeBody = plan.method != .head
        var bodySize: Int64?
        do throws(Failure) {
            switch result {
            case let .success(response):
                bodySize = Int64(response.body.count)
                try print(response, with: printer, includeBody: includeBody)
            case let .failure(NetworkError.httpStatus(response)):
                bodySize = Int64(response.body.count)
                if plan.jsonOutput {
                    // The status is in the JSON for the script; --fail still sets the exit status.
                    try printer.printJSON(response)
                    try failIfAsked(response, printer: nil, includeHead: false, includeBody: false)
                } else {
                    try failIfAsked(response, printer: printer, includeHead: plan.includeHeaders, includeBody: includeBody)
                    // Without --fail an error page is a page like any other, as in curl.
                    try printer.printResponse(response, includeHead: plan.includeHeaders, includeBody: includeBody)
                }
            case let .failure(error):
                throw failure(error)
            }
        } catch {
            return .failed(error, bodySize: bodySize)
        }
        return Outcome(bodySize: bodySize)
    }

    private func print(_ response: HTTPResponse, with printer: BodyPrinter, includeBody: Bool) throws(Failure) {
        if plan.jsonOutput {
            try printer.printJSON(response)
        } else {
            try printer.printResponse(response, includeHead: plan.includeHeaders, includeBody: includeBody)
        }
    }

    /// `-o FILE`: streamed to disk through a `.partial` file, so a large body never sits in
    /// memory, and an interrupted `get` resumes when run again. A device or FIFO (`-o /dev/null`)
    /// is written directly, as curl does: the library never replaces one.
    private func save(to file: URL, session: Session) -> Outcome {
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
                try failIfAsked(response, printer: BodyPrinter(console: console), includeHead: false, includeBody: true)
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
    private func failIfAsked(_ response: HTTPResponse, printer: BodyPrinter?, includeHead: Bool, includeBody: Bool) throws(Failure) {
        guard plan.settings.fail, response.statusCode >= 400 else { return }
        printer?.printResponseToStderr(response, includeHead: includeHead, includeBody: includeBody)
        throw Failure(NetworkError.httpStatus(response), url: plan.url, timeout: plan.settings.timeout)
    }

    /// The failure for `error`; a body past `--max-filesize` is named as such.
    private func failure(_ error: any Error) -> Failure {
        if let limit = plan.maxFilesize, case let .responseTooLarge(reached)? = error as? NetworkError, reached == limit {
            return Self.tooLarge(limit)
        }
        return Failure(error, url: plan.url, timeout: plan.settings.timeout, connectTimeout: plan.settings.connectTimeout)
    }

    private static func tooLarge(_ limit: Int64) -> Failure {
        Failure(.tooLarge, "the body is larger than --max-filesize (\(limit) bytes)")
    }

    /// `-v` writes its own lines to stderr: no progress bar between them unless asked.
    private func progressStyle(keepsBars: Bool) -> ProgressStyle {
        if plan.verbose, !plan.settings.progressRequested { return .none }
        return ProgressStyle.choose(plan.settings, stderrIsTerminal: console.stderrIsTerminal, keepsBars: keepsBars)
    }

    private func request<Output: Sendable>(
        _ output: @escaping @Sendable (Data, HTTPResponse) throws -> Output
    ) -> Request<Output> {
        Request(method: plan.method, location: .url(plan.url), headers: plan.headers.fields, body: plan.body,
                authentication: plan.headers.authentication, timeout: plan.settings.timeout, output: output)
    }

    /// What the progress display calls the transfer: the resource's name, else the host.
    private var label: String {
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
