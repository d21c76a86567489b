import Foundation

/// The checks behind the default ``NetworkRequest/validate(_:)``.
enum ResponseValidation {
    /// `200..<300`, built once: the default of every request.
    static let successStatusCodes = Set(200..<300)
    /// Every status a response can carry, and more: three digits at most.
    static let possibleStatusCodes = 0..<1000

    /// Throws ``NetworkError/httpStatus(_:)`` for a status outside `statusCodes`, then
    /// ``NetworkError/unexpectedContentType(expected:response:)`` for a media type matching none
    /// of `contentTypes` (when given).
    static func check(_ response: HTTPResponse, statusCodes: Set<Int>, contentTypes: [String]?) throws {
        guard statusCodes.contains(response.statusCode) else { throw NetworkError.httpStatus(response) }
        guard let contentTypes, hasContent(response) else { return }
        guard let mediaType = response.headers["Content-Type"].map(mediaType(of:)),
              contentTypes.contains(where: { matches(mediaType, pattern: $0) }) else {
            throw NetworkError.unexpectedContentType(expected: contentTypes, response: response)
        }
    }

    /// Whether the response has content whose type could be wrong. `204` and `304` never have
    /// any; otherwise a `Content-Type`, a body, or an announced length says there is some (a
    /// download's head has an empty `body` but announces its length).
    private static func hasContent(_ response: HTTPResponse) -> Bool {
        if response.statusCode == 204 || response.statusCode == 304 { return false }
        if response.headers.contains("Content-Type") || !response.body.isEmpty { return true }
        return (response.headers["Content-Length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0) > 0
    }

    /// `type/subtype` of a `Content-Type` value, lower-cased, parameters dropped.
    static func mediaType(of value: String) -> String {
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// `application/json` matches `application/json`, `application/*` and `*/*`.
    private static func matches(_ mediaType: String, pattern: String) -> Bool {
        let pattern = self.mediaType(of: pattern)
        if pattern == "*/*" || pattern == mediaType { return true }
        guard pattern.hasSuffix("/*") else { return false }
        return mediaType.hasPrefix(pattern.dropLast())   // "text/" of "text/*"
    }
}
