import Courier
import Foundation

/// `--json-output`: a response as one JSON object, for scripts that want the status, the
/// headers and the body without parsing `-i` output:
///
///     {"status":200,"headers":{"Content-Type":"text/plain"},"body":"hello"}
///
/// `body` is the body as text; a body that is not UTF-8 text is `null`, and `body_base64`
/// holds its bytes. Header names are spelled as received (URLSession joins repeated fields
/// with `, `).
enum JSONResponse {
    static func text(of response: HTTPResponse) -> String {
        var members: [(key: String, value: String)] = [
            ("status", String(response.statusCode)),
            ("headers", JSONText.object(response.headers.fields.map { ($0.name, JSONText.string($0.value)) })),
        ]
        if let text = String(data: response.body, encoding: .utf8) {
            members.append(("body", JSONText.string(text)))
        } else {
            members.append(("body", "null"))
            members.append(("body_base64", JSONText.string(response.body.base64EncodedString())))
        }
        return JSONText.object(members)
    }
}
