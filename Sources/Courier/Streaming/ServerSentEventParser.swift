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
///
/// What an event gathers before it is dispatched (its data and type) is held up to
/// ``maximumEventSize`` bytes; past that the event is an error (``LimitExceeded/Kind/eventSize``),
/// so a server that never sends the empty line cannot make the parser grow without bound.
/// Comments are dropped as they come and hold nothing.
struct ServerSentEventParser: Sendable {
    /// The most bytes of data and type an event may gather.
    let maximumEventSize: Int
    private var data = ""
    private var type = ""
    private var lastEventID = ""
    private var retry: Int?
    private var atStart = true

    init(maximumEventSize: Int = .max) {
        self.maximumEventSize = max(0, maximumEventSize)
    }

    /// Bytes the event being gathered holds.
    var pendingByteCount: Int { data.utf8.count + type.utf8.count }

    /// Reads one line (without its ending); returns the event it dispatches, if any. Throws when
    /// the event would grow past ``maximumEventSize``, without storing the line; the event
    /// gathered so far is dropped.
    mutating func consume(_ line: Substring) throws(NetworkError) -> ServerSentEvent? {
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
            try checkSize(adding: value.utf8.count - type.utf8.count)
            type = String(value)
        case "data":
            try checkSize(adding: value.utf8.count + 1)
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

    private mutating func checkSize(adding count: Int) throws(NetworkError) {
        let size = pendingByteCount + count
        guard size > maximumEventSize else { return }
        data = ""
        type = ""
        throw .limitExceeded(LimitExceeded(kind: .eventSize, limit: Int64(maximumEventSize), received: Int64(size)))
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
/// lone `\r`, as event streams do) feeding a ``ServerSentEventParser``, both held to the same
/// maximum event size (a line is part of an event).
struct ServerSentEventDecoder: Sendable {
    private var splitter: LineSplitter
    private var parser: ServerSentEventParser

    init(maximumEventSize: Int = .max) {
        splitter = LineSplitter(endings: .any, maximumLength: maximumEventSize, limitKind: .eventSize)
        parser = ServerSentEventParser(maximumEventSize: maximumEventSize)
    }

    /// Bytes held for the event being gathered and the line not ended yet.
    var pendingByteCount: Int { splitter.pendingByteCount + parser.pendingByteCount }

    /// The events `chunk` completes, in order, and the error that ends the stream when an event
    /// (or a line of it) grows past the maximum size: the events dispatched before it come first.
    mutating func decode(_ chunk: Data) -> (events: [ServerSentEvent], limitExceeded: NetworkError?) {
        let output = splitter.split(chunk)
        var events: [ServerSentEvent] = []
        for line in output.lines {
            do {
                if let event = try parser.consume(Substring(String(decoding: line, as: UTF8.self))) { events.append(event) }
            } catch {
                return (events, error)
            }
        }
        return (events, output.limitExceeded)
    }

    /// The events `chunk` completes; throws instead when an event passes the maximum size.
    mutating func events(in chunk: Data) throws(NetworkError) -> [ServerSentEvent] {
        let (events, limitExceeded) = decode(chunk)
        if let limitExceeded { throw limitExceeded }
        return events
    }
}
