/// The version of HTTP a response came over: `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
///
/// ```swift
/// let page = try await network.response(for: Request<Data>.get(url).withResponse())
/// print(page.response.httpVersion)                   // HTTP/2
/// if page.response.httpVersion >= .http2 { print("multiplexed") }
/// ```
///
/// The curl engine reads it from the status line libcurl hands over (`HTTP/2 200`). URLSession
/// on Apple platforms reports it in its task metrics, once the transfer is over; on Linux,
/// FoundationNetworking drops it from the status line and delivers no metrics, so a response
/// of that engine there is ``unknown`` — never a guess. See <doc:Wire>.
public struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    // Two bytes: every response carries one.
    private let majorNumber: UInt8
    private let minorNumber: UInt8

    /// `1` in `HTTP/1.1`, `2` in `HTTP/2`.
    public var major: Int { Int(majorNumber) }
    /// `1` in `HTTP/1.1`; `0` from HTTP/2 on, which has no minor version.
    public var minor: Int { Int(minorNumber) }

    /// A version by its numbers: `HTTPVersion(major: 1, minor: 1)` is ``http1_1``. Numbers
    /// outside `0...255` are clamped into it.
    ///
    /// ```swift
    /// HTTPVersion(major: 2, minor: 0) == .http2   // true
    /// ```
    public init(major: Int, minor: Int) {
        majorNumber = UInt8(clamping: major)
        minorNumber = UInt8(clamping: minor)
    }

    /// `HTTP/1.0`.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// `HTTP/1.1`.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// `HTTP/2`.
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    /// `HTTP/3`.
    public static let http3 = HTTPVersion(major: 3, minor: 0)
    /// The engine could not tell (URLSession on Linux, see above). Sorts before every version.
    public static let unknown = HTTPVersion(major: 0, minor: 0)

    /// `HTTP/1.1`, `HTTP/2`, as a status line writes it (`HTTP/2` has no minor version), or
    /// `unknown`.
    ///
    /// ```swift
    /// print(HTTPVersion.http2, HTTPVersion.http1_1)   // HTTP/2 HTTP/1.1
    /// ```
    public var description: String {
        if self == .unknown { return "unknown" }
        return major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)"
    }

    /// Orders by major, then minor version.
    ///
    /// ```swift
    /// HTTPVersion.http1_1 < .http2   // true
    /// ```
    public static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// Reads the version of a status line (`HTTP/1.1`, `HTTP/2`, `HTTP/2.0`); ``unknown`` for
    /// anything else.
    init(statusLineVersion text: String) {
        switch text {
        case "HTTP/1.1": self = .http1_1
        case "HTTP/2", "HTTP/2.0": self = .http2
        case "HTTP/1.0": self = .http1_0
        case "HTTP/3", "HTTP/3.0": self = .http3
        default:
            let numbers = text.dropFirst("HTTP/".count).split(separator: ".", omittingEmptySubsequences: false)
            guard text.hasPrefix("HTTP/"), (1...2).contains(numbers.count), let major = Int(numbers[0]),
                  let minor = numbers.count == 2 ? Int(numbers[1]) : 0 else {
                self = .unknown
                return
            }
            self.init(major: major, minor: minor)
        }
    }

    /// libcurl's `CURL_HTTP_VERSION_*` value (`CURLINFO_HTTP_VERSION`); `nil` for 0 (no connection).
    init?(curlVersion value: Int) {
        switch value {
        case 1: self = .http1_0
        case 2: self = .http1_1
        case 3: self = .http2
        case 30: self = .http3
        default: return nil
        }
    }

    /// The name ALPN and Apple's task metrics give it (`http/1.1`, `h2`, `h3`); `nil` for another.
    init?(protocolName name: String) {
        switch name.lowercased() {
        case "http/1.0": self = .http1_0
        case "http/1.1": self = .http1_1
        case "h2", "h2c": self = .http2
        case "h3": self = .http3
        default: return nil
        }
    }
}
