import Courier
import Foundation

/// `courier [get|post|put|patch|delete|head] URL`: one request, its body streamed to stdout or
/// to a file.
struct RequestCommand {
    let plan: RequestPlan
    let console: Console

    func run() -> ExitCode {
        let session = Session(plan.settings)
        if let output = plan.output { return save(to: output, session: session) }
        return printBody(session: session)
    }

    /// The body to stdout, written as it arrives (see ``BodyPrinter``): no size limit, memory
    /// stays flat, and a slow reader of the pipe slows the transfer down.
    ///
    /// Every status is accepted and printed, as in curl, unless `--fail` refuses those from 400
    /// on; the refused response then comes back as an error with (the start of) its body.
    private func printBody(session: Session) -> ExitCode {
        // On a terminal the body itself shows the progress: a bar there would garble it.
        let style = console.stdoutIsTerminal
            ? ProgressStyle.none
            : ProgressStyle.choose(plan.settings, stderrIsTerminal: console.stderrIsTerminal, keepsBars: false)
        let display = ProgressDisplay(labels: [label], style: style, console: console)
        let printer = BodyPrinter(console: console, noBuffer: plan.noBuffer)
        var request = self.request { body, _ in body }
        request.acceptedStatusCodes = Set(100..<(plan.settings.fail ? 400 : 1000))
        var started = false
        let result = session.network.streamSynchronously(request, onResponse: { response in
            started = true
            try printer.begin(response, includeHead: plan.includeHeaders)
        }, onData: { chunk in
            try printer.write(chunk)
        }, progress: { display.update(0, $0) })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        display.close()
        if session.interrupts.isInterrupted {
            console.message("interrupted")
            return .interrupted
        }

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
                throw failure   // stdout could not be written
            case let .failure(NetworkError.httpStatus(response)):
                // Only with --fail: every other status is accepted.
                try failIfAsked(response, printer: printer, includeHead: plan.includeHeaders, includeBody: plan.method != .head)
            case let .failure(error):
                if started { printer.flushAfterFailure() }
                throw Failure(error, url: plan.url, timeout: plan.settings.timeout)
            }
        } catch {
            console.message(error.message)
            return error.exitCode
        }
        return .ok
    }

    /// `-o FILE`: streamed to disk through a `.partial` file, so a large body never sits in
    /// memory, and an interrupted `get` resumes when run again. A device or FIFO (`-o /dev/null`)
    /// is written directly, as curl does: the library never replaces one.
    private func save(to file: URL, session: Session) -> ExitCode {
        let style = ProgressStyle.choose(plan.settings, stderrIsTerminal: console.stderrIsTerminal, keepsBars: true)
        let display = ProgressDisplay(labels: [file.lastPathComponent], style: style, console: console)
        // Only a GET can safely be resumed with a Range request; anything else starts afresh.
        let options: DownloadOptions = plan.method == .get ? [.replaceExisting] : [.replaceExisting, .noResume]
        let result = session.network.downloadSynchronously(request { body, _ in body }, to: file, options: options,
                                                           progress: { display.update(0, $0) })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        display.close()
        if session.interrupts.isInterrupted {
            console.message(plan.method == .get ? "interrupted; run the same command again to resume" : "interrupted")
            return .interrupted
        }

        do throws(Failure) {
            switch result {
            case .success:
                break
            case let .failure(NetworkError.httpStatus(response)):
                try failIfAsked(response, printer: BodyPrinter(console: console, noBuffer: plan.noBuffer), includeHead: false, includeBody: true)
                // Without --fail the error page is saved, as curl does; the library keeps it out of
                // the `.partial` file, so it is written here, by the same rules as a download.
                do throws(NetworkError) {
                    try DownloadFiles.save(response.body, to: file)
                } catch {
                    throw Failure(error, url: plan.url, timeout: plan.settings.timeout)
                }
            case let .failure(error):
                throw Failure(error, url: plan.url, timeout: plan.settings.timeout)
            }
        } catch {
            console.message(error.message)
            return error.exitCode
        }
        return .ok
    }

    /// With `--fail`, an HTTP error status prints the response to stderr and ends the command
    /// (exit 22); without it, the caller goes on to treat the error page as output.
    private func failIfAsked(_ response: HTTPResponse, printer: BodyPrinter, includeHead: Bool, includeBody: Bool) throws(Failure) {
        guard plan.settings.fail, response.statusCode >= 400 else { return }
        printer.printResponseToStderr(response, includeHead: includeHead, includeBody: includeBody)
        throw Failure(NetworkError.httpStatus(response), url: plan.url, timeout: plan.settings.timeout)
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
