import Courier
import Foundation

/// One attempt of one transfer: a single `streamSynchronously` call whose closures (on the
/// calling thread) write the heads and the body where they go, as curl writes them.
///
/// - Every status is taken as an answer (`acceptedStatusCodes` is all of them), as in curl:
///   `-f` refuses one from 400 on when its head arrives, before its body (its head is written
///   with `-i`, as curl writes it).
/// - With `-C`, the head decides (``ResumeAnswer``): a body whose `Content-Range` starts where
///   the file ends is appended; `416` means the file is complete already (its body is not
///   written, and the transfer succeeds, as curl says); any other answer with a body (a `206`
///   whose range starts elsewhere or that has no `Content-Range`, the whole body) means the
///   server did not resume there: exit 33, nothing written.
/// - The heads of the redirects followed (`-L`) are written before the final one, for `-i` to
///   the output and for `-D` to its file.
struct TransferAttempt {
    let plan: RequestPlan
    let transfer: TransferPlan
    let network: Network
    let record: TransferRecord
    let output: TransferOutput
    let headerDump: HeaderDump?
    /// Where `-C` resumes (0: from the start, no `Range`).
    let resumeOffset: Int64
    let display: ProgressDisplay
    let row: Int

    /// How the attempt ended.
    struct Outcome {
        var failure: Failure?
        /// The last response, when one came.
        var response: HTTPResponse?
        /// Body bytes received.
        var received: Int64 = 0
        var seconds: TimeInterval = 0
        /// Retries made before this outcome (`%{num_retries}`).
        var retries = 0
        /// `-z` not met: the body was dropped, and `%{response_code}` says 304, as libcurl's.
        var timeConditionUnmet = false
        var exitCode: ExitCode { failure?.exitCode ?? .ok }
    }

    func run(interrupted: () -> Bool) -> Outcome {
        record.reset()
        let started = DispatchTime.now()
        var received: Int64 = 0
        var skipsBody = false
        var timeConditionUnmet = false
        var refusedStatus: HTTPResponse?
        let limit = plan.maxFilesize
        let display = self.display, row = self.row
        let result = network.streamSynchronously(request(), onResponse: { response in
            let received = record.takeUnwrittenRedirectHeads().map(HeadText.bytes(of:)).reduce(Data(), +) + HeadText.bytes(of: response)
            let heads = try dump(received)
            if resumeOffset > 0, response.statusCode == 416 {
                skipsBody = true   // complete already: curl ignores this body, and succeeds (even with -f)
                if plan.includeHeaders || plan.headOnly { try output.begin(response, head: heads) }   // but writes the head (-i)
                return
            }
            if plan.settings.fail, response.statusCode >= 400 {
                // curl has written the head by then (-i), never the body.
                if plan.includeHeaders || plan.headOnly { try output.begin(response, head: heads) }
                throw Failure(NetworkError.httpStatus(response), url: transfer.url, timeout: plan.settings.timeout)
            }
            if let check = plan.timeCheck, resumeOffset == 0, plan.headers.value("Range") == nil, response.expectedContentLength != 0,
               !check.isMet(lastModified: response.headers["Last-Modified"]) {
                // libcurl's simulated 304: the head as usual (-i), no body, the output not opened.
                skipsBody = true
                timeConditionUnmet = true
                if plan.includeHeaders || plan.headOnly { try output.begin(response, head: heads) }
                return
            }
            if resumeOffset > 0 {
                switch ResumeAnswer.judge(response, offset: resumeOffset, expectsBody: transfer.method(in: plan) != .head) {
                case .continues:
                    break
                case .complete:
                    skipsBody = true
                    if plan.includeHeaders || plan.headOnly { try output.begin(response, head: heads) }
                    return
                case .refused:
                    throw refusedResume(response)
                }
            }
            if plan.failWithBody, response.statusCode >= 400 { refusedStatus = response }
            if let limit, response.expectedContentLength > limit || Self.lengthOverflows(response) { throw RequestCommand.tooLarge(limit) }
            try output.begin(response, head: plan.includeHeaders || plan.headOnly ? heads : nil)
        }, onData: { chunk in
            guard !skipsBody else { return }
            received += Int64(chunk.count)
            if let limit, received > limit { throw RequestCommand.tooLarge(limit) }
            try output.write(chunk)
        }, progress: { display.update(row, $0) })
        let seconds = TimeInterval(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        var outcome = Outcome(response: record.current.response, received: received, seconds: seconds)
        outcome.timeConditionUnmet = timeConditionUnmet
        display.finish(row, RequestCommand.state(of: result, interrupted: interrupted()))
        if interrupted() {
            outcome.failure = Failure(.interrupted, "interrupted")
            return outcome
        }
        switch result {
        case .success:
            if let refusedStatus {
                outcome.failure = Failure(NetworkError.httpStatus(refusedStatus), url: transfer.url, timeout: plan.settings.timeout)
            }
        case .failure(is BodyPrinter.Stop):
            break   // a binary body on a terminal: the notice is out
        case let .failure(failure as Failure):
            outcome.failure = failure
        case let .failure(error):
            outcome.failure = failure(error)
            writeRedirectHeadsLeft(error)
        }
        return outcome
    }

    /// The heads of the redirects followed before a failure that came with no response, and of
    /// the redirect not followed (too many, or to a scheme refused): curl has written them by
    /// then, to -D's file and, with -i, the output.
    private func writeRedirectHeadsLeft(_ error: any Error) {
        var redirects = record.takeUnwrittenRedirectHeads()
        switch error as? NetworkError {
        case let .tooManyRedirects(response)?, let .unsupportedRedirect(_, response)?: redirects.append(response)
        default: break
        }
        guard let last = redirects.last else { return }
        let received = redirects.map(HeadText.bytes(of:)).reduce(Data(), +)
        let heads = (try? dump(received)) ?? received
        if plan.includeHeaders || plan.headOnly { try? output.begin(last, head: heads) }
    }

    /// Writes `heads` to `-D`'s file, and returns what `-i` writes of them. With `-D -` and `-i`
    /// both on stdout, curl writes each line to the one and then to the other: every line twice,
    /// in turn, which `-i` then writes (and `-D` nothing of its own).
    private func dump(_ heads: Data) throws(Failure) -> Data {
        guard let headerDump else { return heads }
        guard headerDump.isStdout, plan.includeHeaders || plan.headOnly, transfer.output == .stdout else {
            try headerDump.write(heads)
            return heads
        }
        var twice = Data()
        var start = heads.startIndex
        while start < heads.endIndex {
            let end = heads[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? heads.endIndex
            twice += heads[start..<end] + heads[start..<end]
            start = end
        }
        return twice
    }

    /// The request of this attempt: the plan's, to this transfer's URL, with `Range` to resume.
    private func request() -> Request<Data> {
        var headers = plan.headers.fields
        if resumeOffset > 0 { headers["Range"] = "bytes=\(resumeOffset)-" }
        // A URL past the line's uploads sends no body, and so no Expect courier added for one.
        if transfer.upload == .none, plan.expectIsImplied { headers["Expect"] = nil }
        var request = Request(method: transfer.method(in: plan), location: .url(transfer.url), headers: headers,
                              body: transfer.body(in: plan),
                              authentication: plan.headers.authentication, timeout: plan.settings.timeout) { body, _ in body }
        request.headerOrder = plan.headers.order
        // Every status is an answer, printed or saved as any other, as in curl.
        request.acceptedStatusCodes = Set(100..<1000)
        return request
    }

    /// Exit 33 for an answer that does not continue the file where it ends (``ResumeAnswer``):
    /// nothing of it is written, as curl writes nothing.
    private func refusedResume(_ response: HTTPResponse) -> Failure {
        let file = output.filePath ?? "the output"
        // The server's own text is not repeated: a hostile one would reach the terminal.
        let answer = ResumeAnswer.rangeStart(response.headers["Content-Range"]).map {
            "HTTP \(response.statusCode) with a Content-Range from byte \($0)"
        } ?? "HTTP \(response.statusCode) without a usable Content-Range"
        return Failure(.rangeError, "the server does not support byte ranges: asked for the bytes from \(resumeOffset) on, "
            + "it answered \(answer); cannot resume \(file), left as it was")
    }

    /// The failure for `error`; a body past `--max-filesize` is named as such.
    private func failure(_ error: any Error) -> Failure {
        if let limit = plan.maxFilesize, case let .responseTooLarge(reached)? = error as? NetworkError, reached == limit {
            return RequestCommand.tooLarge(limit)
        }
        return Failure(error, url: transfer.url, timeout: plan.settings.timeout, connectTimeout: plan.settings.connectTimeout)
    }
}

extension TransferAttempt {
    /// A `Content-Length` of digits too large for 63 bits: libcurl then reads the body as if
    /// none were given, but curl with `--max-filesize` stops at once ("Maximum file size
    /// exceeded", exit 63), whatever the limit.
    static func lengthOverflows(_ response: HTTPResponse) -> Bool {
        guard let length = response.headers["Content-Length"]?.trimmingCharacters(in: .whitespaces),
              !length.isEmpty, length.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        return Int64(length) == nil
    }
}
