/// The version of this Courier library, in one place: the default `User-Agent`
/// (``Network/userAgent``) and `courier --version` both read it.
///
/// ```swift
/// print(CourierVersion.current)     // "0.1.0"
/// print(CourierVersion.userAgent)   // "Courier/0.1.0"
/// ```
public enum CourierVersion {
    /// The version number, `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"

    /// The `User-Agent` a ``Network`` sends unless told otherwise: `Courier/` and the version,
    /// as curl sends `curl/7.88.1`.
    public static var userAgent: String { "Courier/\(current)" }
}
