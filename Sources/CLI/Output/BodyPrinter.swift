import Courier
import Foundation

/// Writes a response the way a person at a terminal wants it, and byte-exact for everyone else.
///
/// On a terminal: JSON is pretty-printed, a binary body is replaced by a one-line notice (it
/// could garble the terminal), and a missing final newline is added so the prompt starts on its
/// own line. Anywhere else (a pipe, a file) the body is written exactly as received.
struct BodyPrinter {
    let console: Console

    /// The response on stdout: the head first if asked (`-i`, `head`), then the body.
    func printResponse(_ response: HTTPResponse, includeHead: Bool, includeBody: Bool) throws(Failure) {
        var output = Data()
        if includeHead { output.append(Self.head(of: response)) }
        if includeBody { output.append(format(response, forTerminal: console.stdoutIsTerminal)) }
        try console.writeOut(output)
    }

    /// `--json-output`: status, headers and body as one JSON object on stdout, pretty-printed
    /// on a terminal, on one line otherwise.
    func printJSON(_ response: HTTPResponse) throws(Failure) {
        let json = Data(JSONResponse.text(of: response).utf8)
        let formatted = console.stdoutIsTerminal ? JSONFormatter.prettyPrinted(json) ?? json : json
        try console.writeOut(formatted + Data("\n".utf8))
    }

    /// The response on stderr (`--fail`): the same rules, judged by whether stderr is a terminal.
    func printResponseToStderr(_ response: HTTPResponse, includeHead: Bool, includeBody: Bool) {
        var output = Data()
        if includeHead { output.append(Self.head(of: response)) }
        if includeBody { output.append(format(response, forTerminal: console.stderrIsTerminal)) }
        console.writeError(output)
    }

    private func format(_ response: HTTPResponse, forTerminal: Bool) -> Data {
        let body = response.body
        guard forTerminal, !body.isEmpty else { return body }
        if Self.isBinary(body) {
            console.message("binary output (\(body.count) bytes) not shown on a terminal; use -o FILE")
            return Data()
        }
        if Self.isJSON(response.headers["Content-Type"]), let pretty = JSONFormatter.prettyPrinted(body) {
            return pretty + Data("\n".utf8)
        }
        return body.last == UInt8(ascii: "\n") ? body : body + Data("\n".utf8)
    }

    /// `HTTP/1.1 200 OK`, the header fields, a blank line. Foundation does not expose the
    /// protocol version or the reason phrase, so both are reconstructed.
    static func head(of response: HTTPResponse) -> Data {
        var text = statusLine(of: response.statusCode) + "\n"
        for field in response.headers.fields {
            text += "\(field.name): \(field.value)\n"
        }
        return Data((text + "\n").utf8)
    }

    /// `HTTP/1.1 200 OK`.
    static func statusLine(of statusCode: Int) -> String {
        "HTTP/1.1 \(statusCode) \(ReasonPhrase.text(for: statusCode))"
    }

    /// NUL bytes or invalid UTF-8: what curl calls "binary output" and refuses to print.
    static func isBinary(_ body: Data) -> Bool {
        body.contains(0) || String(data: body, encoding: .utf8) == nil
    }

    /// `application/json`, `text/json`, and the `+json` family (`application/problem+json`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json")
    }
}
