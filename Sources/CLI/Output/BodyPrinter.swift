import Courier
import Foundation

/// Writes a response body to stdout as it arrives: byte-exact for a pipe or a file, and the way
/// a person at a terminal wants it.
///
/// - Not a terminal: every chunk is written as it arrives, nothing added, nothing held.
/// - A terminal, JSON (`application/json`, `*+json`): the body is held, up to
///   ``prettyPrintLimit``, and pretty-printed at the end; a larger body, or one that is not JSON
///   after all, is written as it is from then on. With `-N` nothing is held.
/// - A terminal, anything else: written as it arrives, unless it turns out binary (NUL bytes or
///   invalid UTF-8), which could garble the terminal: then a one-line notice replaces the rest
///   and the transfer stops. A missing final newline is added, so the prompt starts on its own line.
///
/// Used from one thread (the one blocked in `streamSynchronously`), hence no lock of its own;
/// the ``Console`` it writes through has one.
final class BodyPrinter {
    /// The most JSON held back for pretty-printing on a terminal.
    static let prettyPrintLimit = 4 << 20

    /// Thrown from a handler to stop the transfer without it being a failure (a binary body on a
    /// terminal, once the notice is shown).
    struct Stop: Error {}

    private enum Mode {
        /// Exactly as received.
        case raw
        /// JSON held for pretty-printing.
        case json(Data)
        /// Text for a terminal, checked as it goes.
        case text
    }

    private let console: Console
    private let noBuffer: Bool
    private var mode = Mode.raw
    /// The end of the last chunk when it stops inside a UTF-8 sequence (text mode).
    private var carry = Data()
    /// The last byte written to the terminal, to add a missing final newline.
    private var lastByte: UInt8?

    init(console: Console, noBuffer: Bool) {
        self.console = console
        self.noBuffer = noBuffer
    }

    /// The response head: printed first if asked (`-i`, `head`); decides how the body is written.
    func begin(_ response: HTTPResponse, includeHead: Bool) throws(Failure) {
        if includeHead { try console.writeOut(Self.head(of: response)) }
        if !console.stdoutIsTerminal {
            mode = .raw
        } else if !noBuffer, Self.isJSON(response.headers["Content-Type"]) {
            mode = .json(Data())
        } else {
            mode = .text
        }
    }

    /// A chunk of the body.
    func write(_ chunk: Data) throws {
        switch mode {
        case .raw:
            try console.writeOut(chunk)
        case var .json(held):
            mode = .raw   // so that appending does not copy what is held
            held.append(chunk)
            if held.count > Self.prettyPrintLimit {
                mode = .text
                try writeText(held)
            } else {
                mode = .json(held)
            }
        case .text:
            try writeText(chunk)
        }
    }

    /// The body is complete: what was held goes out (pretty-printed if it is JSON).
    func finish() throws {
        switch mode {
        case .raw:
            return
        case let .json(held):
            mode = .text
            if !held.isEmpty, let pretty = JSONFormatter.prettyPrinted(held) {
                try console.writeOut(pretty + Data("\n".utf8))
                return
            }
            try writeText(held)
            try finish()
        case .text:
            if let lastByte, lastByte != UInt8(ascii: "\n") { try console.writeOut(Data("\n".utf8)) }
        }
    }

    /// The transfer failed after its head: what is held goes out as it is, as far as it got.
    func flushAfterFailure() {
        if case let .json(held) = mode {
            mode = .text
            try? writeText(held)
        }
        if case .text = mode { try? finish() }
    }

    /// Text for a terminal: written unless it turns out binary (see the type's documentation).
    private func writeText(_ chunk: Data) throws {
        guard !chunk.isEmpty else { return }
        guard Self.looksLikeText(chunk, carry: &carry) else {
            console.message("binary output not shown on a terminal; use -o FILE or a pipe")
            mode = .raw
            throw Stop()
        }
        try console.writeOut(chunk)
        lastByte = chunk.last
    }

    /// `--json-output`: status, headers and body as one JSON object on stdout, pretty-printed
    /// on a terminal, on one line otherwise.
    func printJSON(_ response: HTTPResponse) throws(Failure) {
        let json = Data(JSONResponse.text(of: response).utf8)
        let formatted = console.stdoutIsTerminal ? JSONFormatter.prettyPrinted(json) ?? json : json
        try console.writeOut(formatted + Data("\n".utf8))
    }

    /// The response on stderr (`--fail`), whole (the library gives at most the first MiB of an
    /// error page): the rules above, judged by whether stderr is a terminal.
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

    /// `HTTP/1.1 200 OK`, the header fields, a blank line. The reason phrase is reconstructed;
    /// the version is the response's (`HTTP/2 200 `, as curl writes it).
    static func head(of response: HTTPResponse) -> Data {
        var text = statusLine(of: response.statusCode, version: response.httpVersion) + "\n"
        for field in response.headers.fields {
            text += "\(field.name): \(field.value)\n"
        }
        return Data((text + "\n").utf8)
    }

    /// `HTTP/1.1 200 OK`; over HTTP/2 and 3, which carry no reason phrase, `HTTP/2 200 ` as curl
    /// writes it. A version the engine did not report (URLSession on Linux) is written `HTTP/1.1`.
    static func statusLine(of statusCode: Int, version: HTTPVersion = .http1_1) -> String {
        if version.major >= 2 { return "\(version) \(statusCode) " }
        return "\(version == .unknown ? HTTPVersion.http1_1 : version) \(statusCode) \(ReasonPhrase.text(for: statusCode))"
    }

    /// NUL bytes or invalid UTF-8: what curl calls "binary output" and refuses to print.
    static func isBinary(_ body: Data) -> Bool {
        body.contains(0) || String(data: body, encoding: .utf8) == nil
    }

    /// Whether `chunk`, after `carry` (the start of a UTF-8 sequence the last chunk ended in),
    /// is text: no NUL, valid UTF-8. A sequence `chunk` ends in is kept in `carry` for the next.
    static func looksLikeText(_ chunk: Data, carry: inout Data) -> Bool {
        var bytes = carry + chunk
        // The start of the last sequence, if the chunk ends before its last byte.
        var cut = bytes.endIndex
        for index in bytes.indices.reversed().prefix(3) where bytes[index] & 0xC0 != 0x80 {
            let lead = bytes[index]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if bytes.endIndex - index < length { cut = index }
            break
        }
        carry = Data(bytes[cut...])
        bytes = Data(bytes[..<cut])
        return !isBinary(bytes)
    }

    /// `application/json`, `text/json`, and the `+json` family (`application/problem+json`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json")
    }
}
