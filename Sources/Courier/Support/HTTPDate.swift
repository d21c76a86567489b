import Foundation

/// Dates a server writes into headers (`Retry-After`, a cookie's `Expires`), read by hand.
///
/// Never through `DateFormatter`: FoundationNetworking's formatter traps on some non-ASCII input
/// (`Fatal error: Incorrect range CFRange`, found by fuzzing), so a single header from any server
/// could end the process. Here every byte outside the grammar is a failed parse, and the date is
/// computed with integer arithmetic alone: no calendar, no locale, no time zone database.
/// `package`: the command-line tool reads `Retry-After` with it for `--retry`.
package enum HTTPDate {
    /// An HTTP date in one of the three forms RFC 9110 §5.6.7 says recipients must accept, or `nil`:
    ///
    /// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year is read as within 50 years of `now`)
    /// - asctime: `Sun Nov  6 08:49:37 1994`
    ///
    /// Day and month names are matched without regard to case; the weekday is not checked against
    /// the date (a wrong one changes nothing a recipient does with it).
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        var scanner = ByteScanner(Array(text.utf8))
        scanner.skipSpaces()
        guard let weekday = scanner.letters(), !weekday.isEmpty else { return nil }
        if scanner.take(UInt8(ascii: ",")) {
            scanner.skipSpaces()
            guard let day = scanner.digits(1...2) else { return nil }
            if scanner.take(UInt8(ascii: "-")) {
                // RFC 850: DD-Mon-YY HH:MM:SS GMT
                guard let month = scanner.month(), scanner.take(UInt8(ascii: "-")),
                      let shortYear = scanner.digits(2...4) else { return nil }
                let year = shortYear < 100 ? Self.fullYear(twoDigits: shortYear, now: now) : shortYear
                return scanner.timeThenGMT().flatMap { date(year: year, month: month, day: day, time: $0) }
            }
            // IMF-fixdate: DD Mon YYYY HH:MM:SS GMT
            guard scanner.spaces(), let month = scanner.month(), scanner.spaces(),
                  let year = scanner.digits(4...4) else { return nil }
            return scanner.timeThenGMT().flatMap { date(year: year, month: month, day: day, time: $0) }
        }
        // asctime: Mon DD HH:MM:SS YYYY, the day padded with a space to two characters.
        guard scanner.spaces(), let month = scanner.month(), scanner.spaces(),
              let day = scanner.digits(1...2), scanner.spaces(), let time = scanner.time(), scanner.spaces(),
              let year = scanner.digits(4...4) else { return nil }
        scanner.skipSpaces()
        guard scanner.isAtEnd else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// A cookie's `Expires`, read with the lenient algorithm of RFC 6265 §5.1.1 (what browsers
    /// accept: the parts in any order, among other tokens), or `nil`.
    static func parseCookieDate(_ text: Substring) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in Self.cookieDateTokens(Array(text.utf8)) {
            if time == nil, let parsed = Self.cookieTime(token) {
                time = parsed
            } else if day == nil, let value = Self.leadingDigits(token, 1...2) {
                day = value
            } else if month == nil, token.count >= 3,
                      let value = ByteScanner.monthNumber(token[token.startIndex], token[token.startIndex + 1], token[token.startIndex + 2]) {
                month = value
            } else if year == nil, let value = Self.leadingDigits(token, 2...4) {
                year = value
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601 else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// The moment of a UTC date and time, or `nil` for one that does not exist (30 February, 24:00).
    /// A leap second (`:60`) is read as the next second, as RFC 6265 allows.
    static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + time.hour) * 60 + time.minute) * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    // MARK: - Arithmetic

    private static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date, in the proleptic Gregorian calendar: the count of days
    /// in the whole years before it (by the 4/100/400 rule), plus the days of its own year.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        func leapDaysBefore(_ year: Int) -> Int { let y = year - 1; return y / 4 - y / 100 + y / 400 }
        let wholeYears = (year - 1970) * 365 + leapDaysBefore(year) - leapDaysBefore(1970)
        let monthStarts = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
        let leapDay = month > 2 && isLeap(year) ? 1 : 0
        return wholeYears + monthStarts[month - 1] + leapDay + day - 1
    }

    /// RFC 9110: a two-digit year more than 50 years in the future is the most recent past year
    /// with the same last two digits.
    private static func fullYear(twoDigits: Int, now: Date) -> Int {
        let currentYear = 1970 + Int(now.timeIntervalSince1970 / 31_556_952)   // mean Gregorian year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    // MARK: - RFC 6265 §5.1.1 tokens

    /// The date-tokens: runs of bytes between delimiters (everything but digits, letters, `:`
    /// and bytes above 0x7F, which RFC 6265 counts as non-delimiters and so as parts of tokens).
    private static func cookieDateTokens(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split { byte in
            let isDelimiter = byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
            return isDelimiter
        }
    }

    /// `h[h]:m[m]:s[s]` at the start of a token (anything may follow), or `nil`.
    private static func cookieTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var scanner = ByteScanner(Array(token))
        guard let hour = scanner.digits(1...2), scanner.take(UInt8(ascii: ":")),
              let minute = scanner.digits(1...2), scanner.take(UInt8(ascii: ":")),
              let second = scanner.digits(1...2) else { return nil }
        if let next = scanner.peek, ByteScanner.isDigit(next) { return nil }
        return (hour, minute, second)
    }

    /// 1 to `lengths.upperBound` digits at the start of a token, followed by a non-digit or the end.
    private static func leadingDigits(_ token: ArraySlice<UInt8>, _ lengths: ClosedRange<Int>) -> Int? {
        var scanner = ByteScanner(Array(token))
        guard let value = scanner.digits(lengths) else { return nil }
        if let next = scanner.peek, ByteScanner.isDigit(next) { return nil }
        return value
    }
}

/// Reads ASCII grammar off a byte array, one piece at a time.
private struct ByteScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpaces() {
        while peek == 0x20 || peek == 0x09 { index += 1 }
    }

    /// At least one space or tab.
    mutating func spaces() -> Bool {
        let start = index
        skipSpaces()
        return index > start
    }

    /// A run of ASCII letters (possibly empty), or `nil` when a non-ASCII byte ends it.
    mutating func letters() -> [UInt8]? {
        let start = index
        while let byte = peek, (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) { index += 1 }
        if let byte = peek, byte >= 0x80 { return nil }
        return Array(bytes[start..<index])
    }

    /// A number of `lengths` digits, not followed by another digit.
    mutating func digits(_ lengths: ClosedRange<Int>) -> Int? {
        var value = 0
        var count = 0
        while let byte = peek, Self.isDigit(byte), count < lengths.upperBound {
            value = value * 10 + Int(byte - 0x30)
            count += 1
            index += 1
        }
        guard count >= lengths.lowerBound else { return nil }
        if let byte = peek, Self.isDigit(byte) { return nil }
        return value
    }

    /// A three-letter English month name, matched without regard to case.
    mutating func month() -> Int? {
        guard index + 3 <= bytes.count,
              let month = Self.monthNumber(bytes[index], bytes[index + 1], bytes[index + 2]) else { return nil }
        index += 3
        return month
    }

    /// `HH:MM:SS`, two digits each.
    mutating func time() -> (hour: Int, minute: Int, second: Int)? {
        guard let hour = digits(2...2), take(UInt8(ascii: ":")), let minute = digits(2...2), take(UInt8(ascii: ":")),
              let second = digits(2...2) else { return nil }
        return (hour, minute, second)
    }

    /// ` HH:MM:SS GMT` and nothing else but spaces.
    mutating func timeThenGMT() -> (hour: Int, minute: Int, second: Int)? {
        guard spaces(), let time = time(), spaces(), let zone = letters(), zone.count == 3,
              zone.map({ $0 & 0xDF }) == Array("GMT".utf8) else { return nil }
        skipSpaces()
        return isAtEnd ? time : nil
    }

    private static let months: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .map { Array($0.utf8) }

    /// 1...12 for the first three letters of an English month name, in any case.
    static func monthNumber(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int? {
        let lowered = [a | 0x20, b | 0x20, c | 0x20]
        return months.firstIndex(of: lowered).map { $0 + 1 }
    }
}
