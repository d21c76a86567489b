import Foundation

/// Turns the lines of an event stream into events, by the rules of the WHATWG HTML standard
/// ("Server-sent events", event stream interpretation):
///
/// - a byte order mark opening the stream is skipped;
/// - an empty line dispatches the event gathered so far, if it has data (the last `\n` of its
///   data removed; type `message` unless `event:` said otherwise), then starts a new one;
/// - a line starting with `:` is a comment;
/// - `field:value` (one space after the colon dropped), or a bare `field` (empty value);
///   `event`, `data` (appended, with `\n`), `id` (unless it holds NUL; kept across events) and
///   `retry` (digits only) are used, any other field is ignored;
/// - an event the stream ends in the middle of is discarded.
struct ServerSentEventParser: Sendable {
    private var data = ""
    private var type = ""
    private var lastEventID = ""
    private var retry: Int?
    private var atStart = true

    /// Reads one line (without its ending); returns the event it dispatches, if any.
    mutating func consume(_ line: Substring) -> ServerSentEvent? {
        var line = line
        if atStart {
            atStart = false
            if line.unicodeScalars.first == "\u{FEFF}" { line = Substring(line.unicodeScalars.dropFirst()) }
        }
        guard !line.isEmpty else { return dispatch() }
        // Field names and the separator are ASCII: cut on the bytes, never on characters (a
        // combining mark after the colon would otherwise make one character of both).
        let colon = UInt8(ascii: ":")
        guard line.utf8.first != colon else { return nil }   // a comment
        let field: Substring
        var value: Substring
        if let separator = line.utf8.firstIndex(of: colon) {
            field = line[..<separator]
            value = line[line.utf8.index(after: separator)...]
            if value.utf8.first == UInt8(ascii: " ") { value = value[value.utf8.index(after: value.startIndex)...] }
        } else {
            field = line
            value = ""
        }
        switch field {
        case "event":
            type = String(value)
        case "data":
            data += value
            data += "\n"
        case "id":
            if !value.utf8.contains(0) { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(value) {
                retry = milliseconds
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data = ""
            type = ""
        }
        guard !data.isEmpty else { return nil }
        var text = data
        text.removeLast()   // the "\n" after the last data line
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: text, lastEventID: lastEventID, retry: retry)
    }
}

/// The bytes of an event stream in, events out: a ``LineSplitter`` (which also ends lines at a
/// lone `\r`, as event streams do) feeding a ``ServerSentEventParser``.
struct ServerSentEventDecoder: Sendable {
    private var splitter = LineSplitter(endings: .any)
    private var parser = ServerSentEventParser()

    /// The events `chunk` completes, in order.
    mutating func events(in chunk: Data) -> [ServerSentEvent] {
        splitter.lines(in: chunk).compactMap { parser.consume(Substring(String(decoding: $0, as: UTF8.self))) }
    }
}
