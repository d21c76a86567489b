import Courier
import Foundation

extension RequestCommand {
    /// `-o LINK`: the user's own link (`/dev/stdout`, one made to a file) is opened through, as
    /// curl opens it, when the response arrives: the file, device or FIFO it leads to gets the
    /// body as it streams (a regular file emptied first), and the link stays a link. No `.partial`
    /// file and no resume: those are for the library's own names, which never follow a link
    /// (`/dev/stdout` is a link to `/proc/self/fd/1`, which often names a pipe, not a file).
    ///
    /// As with a plain `-o FILE`: every status is saved unless `--fail` refuses it (then nothing
    /// is opened), and `--max-filesize` is held to.
    func saveThroughLink(_ file: URL, session: Session) -> Outcome {
        let display = ProgressDisplay(labels: [file.lastPathComponent], style: progressStyle(keepsBars: true), console: console)
        let output = OutputFile(file)
        var request = self.request { body, _ in body }
        request.acceptedStatusCodes = Self.printedStatuses(fail: plan.settings.fail, retryPolicy: session.network.retryPolicy)
        let limit = plan.maxFilesize
        var received: Int64 = 0
        let result = session.network.streamSynchronously(request, onResponse: { response in
            if let limit, response.expectedContentLength > limit { throw Self.tooLarge(limit) }
            try output.open()
        }, onData: { chunk in
            received += Int64(chunk.count)
            if let limit, received > limit { throw Self.tooLarge(limit) }
            try output.write(chunk)
        }, progress: { display.update(0, $0) })
        display.finish(0, Self.state(of: result, interrupted: session.interrupts.isInterrupted))
        display.close()
        if session.interrupts.isInterrupted {
            try? output.close()
            return Outcome(exitCode: .interrupted, message: "interrupted", bodySize: received)
        }

        do throws(Failure) {
            switch result {
            case .success:
                try output.close()
            case let .failure(failure as Failure):
                try? output.close()
                throw failure   // the file could not be written, or --max-filesize
            case let .failure(NetworkError.httpStatus(response)):
                // A status retried to the end, or refused by --fail: saved from the error (the
                // library keeps the first MiB of an error page), or refused with exit 22.
                received = Int64(response.body.count)
                try failIfAsked(response, printer: BodyPrinter(console: console, noBuffer: plan.noBuffer),
                                includeHead: false, includeBody: true)
                try output.write(response.body)
                try output.close()
            case let .failure(error):
                try? output.close()
                throw failure(error)
            }
        } catch {
            return .failed(error, bodySize: received)
        }
        return Outcome(bodySize: received)
    }
}
