/// Why a ``Network`` could not be made as asked: thrown by the initializers that take an
/// engine's own configuration (`Network(curl:)`), so that what cannot work is refused once, when
/// the network is made, rather than by every request it would have sent.
public struct NetworkConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine the network was asked for.
    public let engine: Network.Engine
    /// What is wrong, in a sentence: libcurl could not be loaded (and why), or which setting
    /// cannot work and why.
    public let reason: String

    /// An error for `engine`, saying `reason`.
    public init(engine: Network.Engine, reason: String) {
        self.engine = engine
        self.reason = reason
    }

    /// "a curl network cannot be made: …", for logs and `print`.
    public var description: String { "a \(engine.rawValue) network cannot be made: \(reason)" }
}
