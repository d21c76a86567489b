/// Which of Courier's limits a response passed, carried by ``NetworkError/limitExceeded(_:)``:
/// the limit, its value, and how far the response had got when it passed it.
///
/// The limits are there against servers that are broken or hostile: a compressed body that
/// inflates a thousandfold (a "decompression bomb"), a line or an event that never ends. Passing
/// one ends the transfer at once (the bytes stop), and the request is not retried by default:
/// the same server tends to send the same thing again.
///
/// ```swift
/// catch NetworkError.limitExceeded(let limit) where limit.kind == .lineLength {
///     print("a line longer than \(limit.limit) bytes:", limit)
/// }
/// ```
///
/// New kinds of limit are new values of ``Kind``, not new cases of ``NetworkError``: code that
/// switches over `NetworkError` keeps compiling, and a `switch` over ``Kind`` needs a `default`.
public struct LimitExceeded: Sendable, Hashable, CustomStringConvertible {
    /// A kind of limit. An open set of values (not an `enum`), so that limits can be added
    /// without breaking the callers' `switch` statements.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the kind, e.g. `"decompressionRatio"`.
        public let rawValue: String

        /// Creates a kind from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A content-coded body (`Content-Encoding: gzip`, ...) decoded to more bytes than
        /// ``DecompressionLimit`` allows for the bytes that arrived: ``LimitExceeded/limit`` is
        /// the number of decoded bytes allowed at that point (the ratio times the encoded bytes,
        /// or the floor), ``LimitExceeded/received`` the decoded bytes, and
        /// ``LimitExceeded/encodedBytes`` the bytes that arrived.
        public static let decompressionRatio = Kind(rawValue: "decompressionRatio")
        /// A line of ``ResponseBodyStream/lines(maximumLength:)`` grew past its maximum length
        /// without an ending: ``LimitExceeded/limit`` is the maximum, in bytes,
        /// ``LimitExceeded/received`` the bytes of the line held when it passed it.
        public static let lineLength = Kind(rawValue: "lineLength")
        /// A server-sent event (its lines up to the empty line that dispatches it) grew past its
        /// maximum size: ``LimitExceeded/limit`` is the maximum, in bytes,
        /// ``LimitExceeded/received`` the bytes of the event held when it passed it.
        public static let eventSize = Kind(rawValue: "eventSize")

        /// The kind's name.
        public var description: String { rawValue }
    }

    /// The limit that was passed.
    public var kind: Kind
    /// The limit's value (in bytes for every kind so far).
    public var limit: Int64
    /// How much had arrived when the limit was passed (see ``Kind`` for what each counts).
    public var received: Int64
    /// For ``Kind/decompressionRatio``: the encoded bytes that had arrived; `nil` for other kinds.
    public var encodedBytes: Int64?

    /// Creates the value (for tests and stub transports; Courier makes these itself).
    public init(kind: Kind, limit: Int64, received: Int64, encodedBytes: Int64? = nil) {
        self.kind = kind
        self.limit = limit
        self.received = received
        self.encodedBytes = encodedBytes
    }

    /// One sentence: what was passed, by how much, and what to do about it.
    public var description: String {
        switch kind {
        case .decompressionRatio:
            let encoded = encodedBytes.map { " from \(Self.bytes($0)) received" } ?? ""
            return "The compressed body decoded to more than \(Self.bytes(limit))\(encoded) (\(Self.bytes(received)) so far), "
                + "past the decompression limit (Network.decompressionLimit): a decompression bomb, or a body to download without decoding."
        case .lineLength:
            return "A line of the body is longer than \(Self.bytes(limit)) (\(Self.bytes(received)) without an ending so far); "
                + "raise maximumLength if such lines are expected."
        case .eventSize:
            return "A server-sent event is larger than \(Self.bytes(limit)) (\(Self.bytes(received)) before its end so far); "
                + "raise maximumEventSize if such events are expected."
        default:
            return "The limit \(kind.rawValue) of \(limit) was passed (\(received) received)."
        }
    }

    /// `1,048,576 bytes`: digits grouped, whatever the locale.
    static func bytes(_ count: Int64) -> String {
        let digits = String(count.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (count < 0 ? "-" : "") + grouped + (count == 1 ? " byte" : " bytes")
    }
}
