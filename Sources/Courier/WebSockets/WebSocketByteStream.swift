/// A connected byte stream a WebSocket runs over, used from the socket's thread only: the curl
/// engine's connection (``CurlWebSocketConnection``) or a test's.
protocol WebSocketByteStream: AnyObject {
    /// The file descriptor to `poll`.
    var socket: Int32 { get }
    /// Writes what it can of `bytes` without blocking: how many went (0: the socket is full).
    func send(_ bytes: UnsafeRawBufferPointer) throws(WebSocketError) -> Int
    /// Reads what has arrived without blocking: the count, `0` at the peer's end of the stream,
    /// `nil` when nothing is there yet.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(WebSocketError) -> Int?
}
