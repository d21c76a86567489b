import Courier
import Foundation

/// A response head as curl writes it for `-i`, `-I` and `-D`: the status line, each field as
/// `Name: value`, CRLF after each line and an empty line to end it, as on the wire.
///
/// The library hands over the fields (in the order received, names as sent, on the curl engine)
/// but neither the protocol version nor the reason phrase, so the status line is
/// `HTTP/1.1 <status> <standard phrase>` (see ``ReasonPhrase``): what most servers send, not
/// necessarily what this one did.
enum HeadText {
    static func bytes(of response: HTTPResponse) -> Data {
        var text = statusLine(of: response.statusCode) + "\r\n"
        for field in response.headers.fields {
            text += "\(field.name): \(field.value)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    /// `HTTP/1.1 200 OK`.
    static func statusLine(of statusCode: Int) -> String {
        "HTTP/1.1 \(statusCode) \(ReasonPhrase.text(for: statusCode))"
    }
}
