import Courier
import Foundation

/// A response head as curl writes it for `-i`, `-I` and `-D`: the status line, each field as
/// `Name: value`, CRLF after each line and an empty line to end it, as on the wire.
///
/// The library hands over the fields (in the order received, names as sent, on the curl engine)
/// and the protocol version, but not the reason phrase, so the status line is
/// `HTTP/1.1 <status> <standard phrase>` (see ``ReasonPhrase``): what most servers send, not
/// necessarily what this one did. HTTP/2 and 3 have no reason phrase: `HTTP/2 200 `, as curl
/// writes it.
///
/// On the curl engine the response carries the bytes as they arrived (``HTTPResponse/headBytes``:
/// LF-only lines, the server's reason phrase and spacing, the `1xx` heads before it), and those
/// are written instead, as curl writes them.
enum HeadText {
    static func bytes(of response: HTTPResponse) -> Data {
        if let received = response.headBytes { return received }
        // An HTTP/0.9 answer (`--http0.9`) has no head at all: curl writes none.
        if response.httpVersion == HTTPVersion(major: 0, minor: 9) { return Data() }
        var text = statusLine(of: response.statusCode, version: response.httpVersion) + "\r\n"
        for field in response.headers.fields {
            text += "\(field.name): \(field.value)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    /// `HTTP/1.1 200 OK`; over HTTP/2 and 3, `HTTP/2 200 `. A version the engine did not report
    /// (URLSession on Linux) is written `HTTP/1.1`.
    static func statusLine(of statusCode: Int, version: HTTPVersion = .http1_1) -> String {
        if version.major >= 2 { return "\(version) \(statusCode) " }
        return "\(version == .unknown ? HTTPVersion.http1_1 : version) \(statusCode) \(ReasonPhrase.text(for: statusCode))"
    }
}
