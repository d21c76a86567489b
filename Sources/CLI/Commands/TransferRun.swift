import Courier
import Foundation

/// One URL of a request command, from its first attempt to its report: curl's retries
/// (``RetryRules``), then the error message, `--remove-on-error`, `--etag-save` and `-w`.
struct TransferRun {
    let plan: RequestPlan
    let transfer: TransferPlan
    let network: Network
    let console: Console
    let interrupts: Interrupts
    let headerDump: HeaderDump?
    let display: ProgressDisplay
    let row: Int
    /// `--trace`/`--trace-ascii`: the file every transfer of the command traces to.
    var trace: TraceFile?

    /// Runs the transfer; returns its exit status.
    func run() -> ExitCode {
        let record = TransferRecord()
        network.observers = [record] + (plan.verbose ? [VerboseLog(console: console, start: .now())] : [])
            + (trace.map { [TraceLog(file: $0)] } ?? [])
        if plan.headers.isRemoved("User-Agent") { network.userAgent = nil }

        let output = TransferOutput(transfer.output, mode: outputMode, console: console, noBuffer: plan.noBuffer)
        var outcome = TransferAttempt.Outcome()
        if case .remoteName("", _, false) = transfer.output {
            outcome.failure = RemoteName.missing
        } else if let unreadable = transfer.unreadableUpload {
            outcome.failure = unreadable
        } else {
            outcome = attempts(output: output, record: record)
        }

        do throws(Failure) {
            // A -z not met is libcurl's simulated 304: no file is made, as for a real one.
            try finish(output, succeeded: outcome.failure == nil, status: outcome.timeConditionUnmet ? 304 : outcome.response?.statusCode)
        } catch {
            if outcome.failure == nil { outcome.failure = error }
        }
        if outcome.failure != nil, plan.removeOnError { output.removeFile() }
        if outcome.failure == nil, let path = plan.etagSave, let response = outcome.response {
            do throws(Failure) { try ETagFile.save(response, to: path) } catch { outcome.failure = error }
        }
        if let failure = outcome.failure { report(failure.message) }
        writeOut(outcome, record: record, output: output)
        return outcome.exitCode
    }

    /// Attempts until one is final by curl's retry rules.
    private func attempts(output: TransferOutput, record: TransferRecord) -> TransferAttempt.Outcome {
        var retries = plan.retry.start()
        let firstStart = Date()
        while true {
            let attempt = TransferAttempt(plan: plan, transfer: transfer, network: network, record: record, output: output,
                                          headerDump: headerDump, resumeOffset: resumeOffset, display: display, row: row)
            var outcome = attempt.run { interrupts.isInterrupted }
            outcome.retries = retries.made
            guard outcome.exitCode != .interrupted, let wait = plan.retry.retryDelay(
                after: outcome.exitCode, status: outcome.response?.statusCode, retryAfter: outcome.response?.headers["Retry-After"],
                elapsed: Date().timeIntervalSince(firstStart), state: &retries) else { return outcome }
            report("\(problem(outcome)); retrying in \(Units.seconds(wait)), "
                + "\(retries.retriesLeft) \(retries.retriesLeft == 1 ? "retry" : "retries") left")
            do throws(Failure) {
                try output.rewind()
            } catch {
                return TransferAttempt.Outcome(failure: error, response: outcome.response, retries: retries.made)
            }
            guard interrupts.pause(seconds: wait) else {
                return TransferAttempt.Outcome(failure: Failure(.interrupted, "interrupted"), response: outcome.response,
                                               retries: retries.made)
            }
        }
    }

    /// What an attempt that is retried ran into: its failure, or the transient status it got.
    private func problem(_ outcome: TransferAttempt.Outcome) -> String {
        if let failure = outcome.failure { return failure.message }
        let status = outcome.response?.statusCode ?? 0
        return "HTTP \(status) \(ReasonPhrase.text(for: status)) (\(Redaction.standard.redact(transfer.url)))"
    }

    /// Closes the output; a file that was written in part stays, as curl leaves it.
    private func finish(_ output: TransferOutput, succeeded: Bool, status: Int?) throws(Failure) {
        do {
            try output.finish(succeeded: succeeded, status: status)
        } catch let failure as Failure {
            throw failure
        } catch {
            return   // BodyPrinter.Stop: the notice is out
        }
    }

    /// `-C`: the offset to resume from: the output file's size for `-C -`, or the one given.
    private var resumeOffset: Int64 {
        switch plan.resume {
        case nil: return 0
        case let .offset(offset)?: return offset
        case .fromFileSize?:
            guard let path = transfer.output.knownPath,
                  let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value else { return 0 }
            return size
        }
    }

    /// How the output file is opened: appended to when resuming, its folders made with `--create-dirs`.
    private var outputMode: OutputFile.Mode {
        OutputFile.Mode(appends: resumeOffset > 0 || plan.resume == .fromFileSize, createsDirectories: plan.createDirectories,
                        keepsExisting: plan.noClobber)
    }

    /// A message on stderr, unless `-s` silences it (and `-S` does not bring it back), as in curl.
    private func report(_ message: String) {
        if !plan.settings.silent || plan.settings.showError { console.message(message) }
    }

    private func writeOut(_ outcome: TransferAttempt.Outcome, record: TransferRecord, output: TransferOutput) {
        guard let writeOut = plan.writeOut else { return }
        let facts = record.current
        for name in writeOut.unknownVariables where !plan.settings.silent {
            console.message("unknown --write-out variable: '\(name)'")
        }
        let report = WriteOutReport(
            response: outcome.response, redirectHeads: facts.redirectHeads, metrics: facts.metrics, effectiveURL: facts.url ?? transfer.url,
            urlText: transfer.urlText, urlIndex: transfer.index, method: facts.method ?? transfer.method(in: plan).rawValue,
            retryCount: outcome.retries, exitCode: outcome.exitCode, errorMessage: outcome.failure?.message,
            downloadSize: outcome.received, uploadSize: facts.sent ? transfer.bodySize(in: plan) : 0, totalTime: outcome.seconds,
            filename: output.filePath, referer: plan.headers.value("Referer"), followsRedirects: plan.settings.followsRedirects,
            simulatedStatus: outcome.timeConditionUnmet ? 304 : nil)
        for (stream, text) in writeOut.render(report) {
            switch stream {
            case .stdout:
                do throws(Failure) { try console.writeOut(Data(text.utf8)) } catch { console.message(error.message) }
            case .stderr:
                console.writeError(Data(text.utf8))
            }
        }
    }
}
