import Foundation

/// One WebSocket message: text (valid UTF-8, checked on arrival) or binary, however many frames
/// it came in.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (opcode 1).
    case text(String)
    /// A binary message (opcode 2).
    case binary(Data)
}
