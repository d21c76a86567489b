import Foundation

/// The body of a request, with the media type Courier sends for it.
///
/// Courier always sets `Content-Type` for a body (unless the request's own headers name one):
/// libcurl, under URLSession on Linux, otherwise labels every POST body as form data.
public enum RequestBody: Sendable {
    /// Raw bytes with an explicit media type.
    case data(Data, contentType: String)
    /// A value encoded as JSON with a default `JSONEncoder`; sent as `application/json`.
    case json(any Encodable & Sendable)
    /// Fields sent as `application/x-www-form-urlencoded`, in the order given (names may repeat).
    case form([(String, String)])
    /// UTF-8 text, sent as `text/plain; charset=utf-8`.
    case text(String)

    /// The `Content-Type` Courier sends with this body.
    public var contentType: String {
        switch self {
        case let .data(_, contentType): return contentType
        case .json: return "application/json"
        case .form: return "application/x-www-form-urlencoded"
        case .text: return "text/plain; charset=utf-8"
        }
    }

    /// Encodes the body into the bytes to send.
    ///
    /// - Throws: ``NetworkError/encodingFailed(_:)`` when a `.json` value cannot be encoded.
    public func encoded() throws -> Data {
        switch self {
        case let .data(data, _):
            return data
        case let .json(value):
            do {
                return try JSONEncoder().encode(value)
            } catch {
                throw NetworkError.encodingFailed(error)
            }
        case let .form(fields):
            return Data(FormEncoding.encode(fields).utf8)
        case let .text(text):
            return Data(text.utf8)
        }
    }
}

/// `application/x-www-form-urlencoded` encoding as the WHATWG URL standard defines it.
enum FormEncoding {
    /// Characters left as they are; everything else is percent-encoded, and space becomes `+`.
    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._ ")

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ string: String) -> String {
        // addingPercentEncoding cannot fail for a String input with a valid character set.
        let escaped = string.addingPercentEncoding(withAllowedCharacters: unreserved) ?? string
        return escaped.replacingOccurrences(of: " ", with: "+")
    }
}
