import Courier
import Foundation

/// The real `curl`, for tests that hold `courier` to what curl does (`apt-get install -y curl`:
/// curl 7.88.1 on Debian 12). Tests assert the behaviour measured with it in any case, and
/// compare with it live when it is installed.
enum RealCurl {
    /// `curl` on the PATH, or `nil`.
    static let executable: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":")
        .map { URL(fileURLWithPath: String($0)).appendingPathComponent("curl") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// The libcurl the expectations were measured on (Debian 12's, which its curl runs on).
    static let measuredLibcurl = "7.88.1"

    /// Whether courier runs on that libcurl: where libcurl itself decides an outcome (how it
    /// reads a status line, which `CURLcode` a refused option gets), other versions differ — the
    /// matrix's 7.74.0 takes `HTTP/1.2` for a status line and has no code 49.
    static var courierRunsOnTheMeasuredLibcurl: Bool { Network.Engine.curlFeatures?.version == measuredLibcurl }

    /// Runs `curl arguments…` to the end (`nil` when curl is not installed).
    static func run(_ arguments: [String], in directory: URL? = nil) throws -> CLIResult? {
        guard let executable else { return nil }
        return try RunningCourier(executable: executable, arguments: arguments, directory: directory, stdin: nil).finish()
    }
}
