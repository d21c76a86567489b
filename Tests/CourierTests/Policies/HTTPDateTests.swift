@testable import Courier
import Foundation
import Testing

/// HTTP dates read by hand (no `DateFormatter`, which traps on some non-ASCII input): the three
/// forms RFC 9110 names for `Retry-After`, and RFC 6265's lenient cookie dates.
@Suite struct HTTPDateTests {
    /// RFC 9110's own example instant: Sun, 06 Nov 1994 08:49:37 GMT.
    private let example = Date(timeIntervalSince1970: 784_111_777)
    private let now = Date(timeIntervalSince1970: 1_700_000_000)   // Tue, 14 Nov 2023 22:13:20 GMT

    @Test func theThreeFormsOfRFC9110() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: now) == example)
        #expect(HTTPDate.parse("  sun, 06 NOV 1994 08:49:37 gmt ", now: now) == example, "case and surrounding spaces")
        #expect(HTTPDate.parse("Tue, 14 Nov 2023 22:13:20 GMT", now: now) == now)
    }

    @Test func calendarArithmeticAcrossLeapYearsAndCenturies() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 12:00:00 GMT") == Date(timeIntervalSince1970: 951_825_600))
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(HTTPDate.parse("Mon, 01 Mar 2100 00:00:00 GMT") == Date(timeIntervalSince1970: 4_107_542_400))
        #expect(HTTPDate.parse("Thu, 29 Feb 2100 00:00:00 GMT") == nil, "2100 is not a leap year")
        #expect(HTTPDate.parse("Wed, 31 Apr 2024 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Wed, 01 Jan 2024 24:00:00 GMT") == nil)
    }

    @Test func aTwoDigitYearIsWithinFiftyYearsOfNow() {
        let in2023 = now
        #expect(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: in2023) == HTTPDate.parse("Fri, 01 Jan 1999 00:00:00 GMT"))
        #expect(HTTPDate.parse("Sunday, 01-Jan-45 00:00:00 GMT", now: in2023) == HTTPDate.parse("Sun, 01 Jan 2045 00:00:00 GMT"))
        #expect(HTTPDate.parse("Monday, 01-Jan-74 00:00:00 GMT", now: in2023) == HTTPDate.parse("Tue, 01 Jan 1974 00:00:00 GMT"))
    }

    /// The input of the crash found by CI's fuzzing (issue 18): bytes a server chose, inside the
    /// date, made Foundation's formatter trap. Every such input is simply not a date.
    @Test func nonASCIIAndMalformedInputIsNotADate() {
        let bytes: [UInt8] = Array("Sun, 06".utf8) + [0xD6, 0xB1, 0x90, 0x89] + Array(" 08:49:37 GMT".utf8)
        let crashInput = String(decoding: bytes, as: UTF8.self)
        for input in [crashInput, "Sun, 06 Nov 1994 08:49:37 GMT\u{0301}", "Sün, 06 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Nøv 1994 08:49:37 GMT", "Sun, ０6 Nov 1994 08:49:37 GMT", "", ",", "Sun,", "Sun, 06 Nov",
                      "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun, 006 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Nov 19944 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun Nov  6 08:49:37 1994 GMT",
                      "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", String(repeating: "9", count: 400)] {
            #expect(HTTPDate.parse(input) == nil, "\(input)")
            _ = HTTPDate.parseCookieDate(Substring(input))   // must not trap, whatever it answers
        }
    }

    @Test func cookieDatesAreReadLeniently() {
        func cookieDate(_ text: String) -> Date? { HTTPDate.parseCookieDate(Substring(text)) }
        #expect(cookieDate("Sun, 06 Nov 1994 08:49:37 GMT") == example)
        #expect(cookieDate("Sunday, 06-Nov-94 08:49:37 GMT") == example)
        #expect(cookieDate("Sun Nov  6 08:49:37 1994") == example)
        #expect(cookieDate("06 November 1994 8:49:37") == example, "any order, long month names, one-digit hour")
        #expect(cookieDate("Wed, 09-Jun-2021 10:18:14 GMT") == HTTPDate.parse("Wed, 09 Jun 2021 10:18:14 GMT"))
        #expect(cookieDate("Thu, 01 Jan 70 00:00:00 GMT") == Date(timeIntervalSince1970: 0), "70 is 1970")
        #expect(cookieDate("Sat, 01 Jan 69 00:00:00 GMT") == HTTPDate.parse("Tue, 01 Jan 2069 00:00:00 GMT"), "69 is 2069")
        #expect(cookieDate("Sun, 06 Nov 1994") == nil, "no time")
        #expect(cookieDate("Sun, 31 Feb 1994 08:49:37 GMT") == nil)
        #expect(cookieDate("Sun, 06 Nov 1600 08:49:37 GMT") == nil, "before 1601")
    }

    @Test func retryAfterReadsDigitsOrADateAndNothingElse() {
        #expect(RetryAfter.seconds(from: " 120 ", now: now) == 120)
        #expect(RetryAfter.seconds(from: "Tue, 14 Nov 2023 22:13:50 GMT", now: now) == 30)
        #expect(RetryAfter.seconds(from: "99999999999999999999999", now: now) == TimeInterval(Int.max))
        #expect(RetryAfter.seconds(from: "+5", now: now) == nil)
        #expect(RetryAfter.seconds(from: "-5", now: now) == nil)
        #expect(RetryAfter.seconds(from: "5s", now: now) == nil)
    }
}
