/// One event of a `text/event-stream` response (server-sent events), as the WHATWG HTML standard
/// defines them.
///
/// Read with ``ResponseBodyStream/serverSentEvents`` or
/// ``Network/streamServerSentEvents(_:callbackQueue:maximumEventSize:onResponse:onEvent:completion:)``.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, `"message"` when it has none.
    public var type: String
    /// Its `data:` fields, joined with `\n`.
    public var data: String
    /// The last event ID: the value of the most recent `id:` field of the stream so far (it
    /// carries over to later events); empty when there has been none, or when an empty `id:`
    /// reset it. A client that reconnects sends it as `Last-Event-ID`.
    public var lastEventID: String
    /// The reconnection time, in milliseconds, the stream has asked for so far with `retry:`;
    /// `nil` when it has not.
    public var retry: Int?

    /// Creates an event, e.g. for tests.
    public init(type: String = "message", data: String, lastEventID: String = "", retry: Int? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }
}
