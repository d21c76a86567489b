import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPResponse {
    /// Whether `headers` say the body travels content-coded: a `Content-Encoding` other than
    /// `identity`. A response keeps the answer for its own headers (``isContentCoded``).
    ///
    /// Whether Courier receives it decoded is ``decodesContent``: URLSession always decodes
    /// (it cannot be turned off); the curl engine decodes when the request asked for a coding
    /// (in-memory and streamed bodies do by default) and otherwise hands the bytes on as they
    /// came (`CURLOPT_HTTP_CONTENT_DECODING` 0, as curl without `--compressed`), which is what a
    /// download asking for `identity` gets.
    static func isContentCoded(_ headers: HTTPHeaders) -> Bool {
        guard let coding = headers["Content-Encoding"] else { return false }
        let trimmed = coding.filter { $0 != " " && $0 != "\t" }
        return !trimmed.isEmpty && trimmed.lowercased() != "identity"
    }

    /// Whether the body Courier receives is decoded from its coding (``isContentCoded``): so
    /// that its bytes are not the ones `Content-Length` and `Content-Range` count.
    var arrivesDecoded: Bool { isContentCoded && decodesContent }

    /// How many body bytes Courier will receive, when the server said: its `Content-Length`,
    /// unless the body arrives decoded (``arrivesDecoded``).
    var receivedLength: Int64? {
        let length = expectedContentLength
        return length >= 0 ? length : nil
    }
}

/// What an `Accept-Encoding` asks for, as the curl engine sets libcurl up from it.
enum ContentCoding {
    /// Whether a request with this `Accept-Encoding` value (`nil`: none set, so the engine offers
    /// every coding it has) asks for a decoded body: any coding but `identity` with a weight
    /// above 0, or `*`. `identity` alone (a download) asks for the bytes as stored.
    static func asksForDecoding(_ acceptEncoding: String?) -> Bool {
        // No value and the empty value (libcurl's "every coding it supports") are the common case.
        guard let acceptEncoding, !acceptEncoding.isEmpty else { return true }
        let trimmed = acceptEncoding.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return true }   // libcurl's "" means every coding it supports
        return trimmed.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, !coding.isEmpty, coding != "identity" else { return false }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
    }
}
