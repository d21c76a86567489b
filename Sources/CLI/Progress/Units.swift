import Foundation

/// Human-readable sizes, speeds and durations for progress lines and messages.
///
/// Sizes are decimal (1 MB = 1,000,000 bytes), as drives and network speeds are quoted, and use
/// a `.` whatever the locale so logs read the same everywhere.
enum Units {
    static func bytes(_ count: Int64) -> String {
        guard count >= 1000 else { return "\(count) B" }
        var value = Double(count)
        for unit in ["KB", "MB", "GB", "TB"] {
            value /= 1000
            // Switch unit before "1000.0 KB" would be printed.
            if value < 999.95 || unit == "TB" { return String(format: "%.1f %@", value, unit) }
        }
        return "\(count) B"
    }

    static func speed(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// `0:07`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        if hours > 0 { return String(format: "%d:%02d:%02d", hours, minutes, secs) }
        return String(format: "%d:%02d", minutes, secs)
    }

    /// `2 s`, `0.5 s`: a deadline as the user typed it.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int64(value)) s" : "\(value) s"
    }
}
