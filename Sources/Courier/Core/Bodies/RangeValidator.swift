import Foundation

/// What ties the bytes of a `.partial` file to the one version of a resource they came from, and
/// the test a `206` must pass before its bytes are appended to them (RFC 9110 §8.8, §13.1.5, §14.4).
///
/// `If-Range` asks the server to send the rest only if the resource is unchanged, but many servers
/// (proxies, object stores, hand-written ones) ignore it and answer a `Range` regardless. Appending
/// such an answer to bytes of another version would make a file that is neither, reported as a
/// success. So the `206` itself is checked: its validator must be the one recorded when the first
/// byte was written, and its complete length the recorded one. Anything else is not a continuation.
enum RangeValidator {
    /// The validator to record for a response, to send later as `If-Range`: its strong `ETag`, else
    /// its `Last-Modified` when that date is strong (at least a second before the response's `Date`,
    /// RFC 9110 §8.8.2.2), else none: the response cannot be resumed. A weak tag (`W/"…"`) is never
    /// a range validator (§13.1.5).
    static func validator(of head: HTTPResponse) -> String? {
        if let tag = head.headers["ETag"].map(trimmed), isStrongTag(tag) { return tag }
        guard let modified = head.headers["Last-Modified"].map(trimmed), let modifiedDate = HTTPDate.parse(modified) else {
            return nil
        }
        if let sent = head.headers["Date"].flatMap({ HTTPDate.parse($0) }), sent.timeIntervalSince(modifiedDate) < 1 {
            return nil   // changed within the second the reply was made: the date may not tell two versions apart
        }
        return modified
    }

    /// Whether a `206` answering a resume from `record` continues the very bytes the partial file
    /// holds: the same validator (strong comparison of tags, or the same `Last-Modified` instant),
    /// and, where both are known, the same complete length. A `206` that omits the validator does
    /// not pass: RFC 9110 §15.3.7 has the server send it, and nothing else tells the versions apart.
    static func continues(_ record: DownloadFiles.ResumeRecord, with head: HTTPResponse, range: ContentRange) -> Bool {
        if let recordedTotal = record.total, let total = range.total, total != recordedTotal { return false }
        let recorded = record.validator
        if isStrongTag(recorded) {
            return head.headers["ETag"].map(trimmed) == recorded
        }
        guard let modified = head.headers["Last-Modified"].map(trimmed) else { return false }
        if modified == recorded { return true }
        guard let date = HTTPDate.parse(modified), let recordedDate = HTTPDate.parse(recorded) else { return false }
        return date == recordedDate
    }

    /// `"…"` with no `W/` before it. Only such a tag's opaque string compares strongly.
    static func isStrongTag(_ tag: String) -> Bool {
        tag.count >= 2 && tag.hasPrefix("\"") && tag.hasSuffix("\"")
    }

    private static func trimmed(_ value: String) -> String {
        value.trimmingCharacters(in: .whitespaces)
    }
}
