import Courier

/// What the answer to a resumed request (`-C`) means for the file, judged as curl 7.88.1 judges it
/// (measured against a loopback server): by where its `Content-Range` starts, not by its status.
/// Only a body that starts exactly where the file ends may be appended; anything else would leave
/// a file whose bytes are in the wrong place (a range that starts early or late), or a second copy
/// of the whole thing after the first part (a `206` without `Content-Range`).
enum ResumeAnswer: Equatable {
    /// The body continues the file: it is appended.
    case continues
    /// The file is complete already: nothing is written, and the transfer succeeds (`416`, or no
    /// usable range with a `Content-Length` equal to the offset: curl's "The entire document is
    /// already downloaded").
    case complete
    /// The server did not resume where asked: exit 33, the file left as it was.
    case refused

    /// Judges `response` to a request for the bytes from `offset` on. `expectsBody`: `false` for
    /// `HEAD`, whose answer has no body to misplace (curl checks only where body bytes arrive).
    static func judge(_ response: HTTPResponse, offset: Int64, expectsBody: Bool) -> ResumeAnswer {
        if response.statusCode == 416 { return .complete }
        if rangeStart(response.headers["Content-Range"]) == offset { return .continues }
        let length = response.expectedContentLength
        if length == offset { return .complete }
        // No body on its way: nothing can land in the wrong place (curl never looks either).
        if !expectsBody || length == 0 { return .continues }
        return .refused
    }

    /// The first byte position of a `Content-Range` value (`bytes 700000-1999999/2000000`), read
    /// as curl reads it: the first number in the value; `nil` for none, or for `bytes */2000000`
    /// (which says no range was served; curl then appends the whole body, corrupting the file,
    /// where courier refuses).
    static func rangeStart(_ value: String?) -> Int64? {
        guard let value, let first = value.firstIndex(where: { $0.isASCII && ($0.isNumber || $0 == "*") }),
              value[first] != "*" else { return nil }
        return Int64(value[first...].prefix { $0.isASCII && $0.isNumber })
    }
}
