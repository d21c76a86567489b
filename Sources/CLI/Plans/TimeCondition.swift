import Foundation

/// curl's `-z`: `DATE` asks for the document only if modified since then (`If-Modified-Since`),
/// `-DATE` only if not (`If-Unmodified-Since`), `=DATE` sends `Last-Modified`. A value that is no
/// date but names a file takes the file's modification time, as curl does. Neither: no header,
/// as curl (which only warns).
enum TimeCondition {
    /// The header line for `-z value`, or `nil`.
    static func line(_ value: String) -> String? {
        let (name, text) = split(value)
        return date(text).map { "\(name): \(httpDate($0))" }
    }

    /// What libcurl checks of the answer (its `Curl_meets_timecondition`): a document whose
    /// `Last-Modified` is not after the date (`-z DATE`, `=DATE`), or not before it (`-z -DATE`),
    /// is not sent on: libcurl drops its body and reports a `304`, as if the server had.
    struct Check: Sendable, Equatable {
        let date: Date
        let wantsOlder: Bool

        /// `nil` for a `-z` that gives no date.
        init?(_ value: String) {
            let (name, text) = TimeCondition.split(value)
            guard let date = TimeCondition.date(text) else { return nil }
            self.date = date
            wantsOlder = name == "If-Unmodified-Since"
        }

        /// Whether a response of this `Last-Modified` (`nil`: none, or not a date) is wanted.
        func isMet(lastModified: String?) -> Bool {
            guard let lastModified, let modified = TimeCondition.parse(lastModified) else { return true }
            let document = modified.timeIntervalSince1970.rounded(.down), limit = date.timeIntervalSince1970.rounded(.down)
            return wantsOlder ? document < limit : document > limit
        }
    }

    /// The header's name and the rest of `-z`'s value.
    private static func split(_ value: String) -> (name: String, text: String) {
        if value.hasPrefix("-") { return ("If-Unmodified-Since", String(value.dropFirst())) }
        if value.hasPrefix("=") { return ("Last-Modified", String(value.dropFirst())) }
        return ("If-Modified-Since", value)
    }

    /// The date `text` gives, or the modification time of the file it names.
    private static func date(_ text: String) -> Date? {
        parse(text) ?? (try? FileManager.default.attributesOfItem(atPath: text)[.modificationDate] as? Date)
    }

    /// The date as libcurl writes it in the header: `Sun, 12 Dec 1999 12:00:00 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// A date in the free forms curl reads (`curl_getdate`): words and numbers in any order —
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`,
    /// `Sun Nov  6 08:49:37 1994`, `dec 12 12:00:00 1999 GMT`, `20091231` — in UTC unless a
    /// `+HHMM`/`-HHMM` offset follows. `nil` when a day, month or year is missing, or a word is
    /// not a month, weekday or UTC's name.
    static func parse(_ text: String) -> Date? {
        var day: Int?, month: Int?, year: Int?
        var hour = 0, minute = 0, second = 0, offset = 0
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        for token in tokens {
            // `06-Nov-94`: the pieces of a dashed date are tokens of their own.
            let pieces = token.contains(where: \.isLetter) && token.contains("-")
                ? token.split(separator: "-") : [token]
            for piece in pieces {
                let lowered = piece.lowercased()
                if piece.contains(":") {
                    let parts = piece.split(separator: ":").map { Int($0) }
                    guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
                    hour = parts[0]!; minute = parts[1]!; second = parts.count == 3 ? parts[2]! : 0
                } else if piece.allSatisfy(\.isLetter) {
                    if let index = months.firstIndex(where: { lowered.hasPrefix($0) }) { month = index + 1 }
                    else if weekdays.contains(where: { lowered.hasPrefix($0) }) || ["gmt", "utc", "ut", "z"].contains(lowered) { continue }
                    else { return nil }
                } else if (piece.hasPrefix("+") || piece.hasPrefix("-")), piece.count == 5, let zone = Int(piece.dropFirst()) {
                    let sign = piece.hasPrefix("-") ? -1 : 1
                    offset = sign * ((zone / 100) * 3600 + (zone % 100) * 60)
                } else if let number = Int(piece), piece.allSatisfy(\.isNumber) {
                    if piece.count == 8, day == nil, month == nil, year == nil {
                        year = number / 10000; month = number / 100 % 100; day = number % 100
                    } else if piece.count == 4 || number > 31 || (day != nil && year == nil) {
                        year = piece.count <= 2 ? (number < 70 ? 2000 + number : 1900 + number) : number
                    } else if day == nil {
                        day = number
                    } else {
                        return nil
                    }
                } else {
                    return nil
                }
            }
        }
        guard let day, let month, let year, (1...31).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar.date(from: components).map { $0.addingTimeInterval(TimeInterval(-offset)) }
    }
}
