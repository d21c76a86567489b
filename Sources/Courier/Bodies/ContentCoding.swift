import Foundation

extension HTTPResponse {
    /// Whether the body travels content-coded: a `Content-Encoding` other than `identity`.
    ///
    /// Both engines hand such a body on decoded: URLSession always, and libcurl because Courier
    /// always sets its `CURLOPT_ACCEPT_ENCODING` (measured with libcurl 7.88: once that option is
    /// set, even to `identity`, libcurl decodes every coding it supports, asked for or not). So
    /// the bytes Courier receives are not the ones `Content-Length` and `Content-Range` count.
    var isContentCoded: Bool {
        guard let coding = headers["Content-Encoding"] else { return false }
        let trimmed = coding.filter { $0 != " " && $0 != "\t" }
        return !trimmed.isEmpty && trimmed.lowercased() != "identity"
    }

    /// How many body bytes Courier will receive, when the server said: its `Content-Length`,
    /// unless the body is content-coded (``isContentCoded``), which arrives decoded.
    var receivedLength: Int64? {
        let length = expectedContentLength
        return length >= 0 ? length : nil
    }
}
