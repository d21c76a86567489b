import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks a response head, as it arrives, for what libcurl lets through but HTTP forbids.
///
/// Conflicting `Content-Length` headers (RFC 9112 §6.3: the framing is invalid, the message an
/// error) are the case today. FoundationNetworking joins repeated fields into one value, so
/// `Content-Length: 5` and `Content-Length: 10` arrive as `"5, 10"`, exactly like a single
/// `Content-Length: 5, 10`; libcurl meanwhile frames the body by one of them (the last of two
/// headers, the first number of a list: measured), and the body would be cut or run over into
/// whatever follows. A repeated identical value (`"5, 5"`) is allowed, as RFC 9110 §8.6 permits.
enum ResponseHeadCheck {
    /// What is wrong with the head, for ``NetworkError/invalidResponse(_:)``, or `nil`.
    static func problem(in response: HTTPResponse) -> String? {
        // URLSession joins repeated fields into one value; the curl engine keeps them apart.
        // The usual case, one plain value, without building anything (this runs for every response).
        let (first, repeated) = response.contentLengthField
        guard repeated || first?.utf8.contains(UInt8(ascii: ",")) == true else { return nil }
        let lengths = response.headers.values(for: "Content-Length")
        let length = lengths.joined(separator: ",")
        let values = length.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        // Compared as numbers where they are numbers: "5" and "05" are the same length.
        let distinct = Set(values.map { value in UInt64(value).map(String.init) ?? value })
        guard distinct.count > 1 else { return nil }
        return "conflicting Content-Length headers (\(values.joined(separator: ", ")))"
    }
}
