/// The output of a request whose response has no useful body (e.g. `204 No Content`).
///
/// Any body the server sends anyway is ignored; use `Data` as the output to keep it.
public struct EmptyResponse: Sendable, Hashable, Codable {
    /// Creates the (only) value.
    public init() {}
}
