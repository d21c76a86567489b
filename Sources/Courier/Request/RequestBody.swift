import Foundation

/// The body of a request, with the media type Courier sends for it.
///
/// Courier always sets `Content-Type` for a body (unless the request's own headers name one):
/// libcurl, under URLSession on Linux, otherwise labels every POST body as form data.
public enum RequestBody: Sendable {
    /// Raw bytes with an explicit media type.
    case data(Data, contentType: String)
    /// A value encoded as JSON with the running network's ``Network/jsonEncoder`` (a plain
    /// `JSONEncoder()` when encoded outside a network); sent as `application/json`.
    case json(any Encodable & Sendable)
    /// A value encoded as JSON with its own encoder, whatever the network's; sent as
    /// `application/json`. Usually written ``json(_:encoder:)``.
    ///
    /// ```swift
    /// let body = RequestBody.encodedJSON(newPost, encoder: snakeCaseEncoder)
    /// ```
    case encodedJSON(any Encodable & Sendable, encoder: JSONEncoder)
    /// Fields sent as `application/x-www-form-urlencoded`, in the order given (names may repeat).
    case form([(String, String)])
    /// A value encoded into `application/x-www-form-urlencoded` fields by a ``URLQueryEncoder``
    /// (nested values as `a[b]=1`, arrays as `list[]=1&list[]=2` by default). Usually written
    /// ``form(_:encoder:)``.
    ///
    /// ```swift
    /// let body = RequestBody.encodedForm(signUp, encoder: URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase))
    /// ```
    case encodedForm(any Encodable & Sendable, encoder: URLQueryEncoder)
    /// UTF-8 text, sent as `text/plain; charset=utf-8`.
    case text(String)
    /// The contents of a file, streamed from disk (never loaded into memory), with upload
    /// progress. The media type is guessed from the file extension.
    case file(URL)
    /// The contents of a file, streamed from disk as ``file(_:)`` is, sent with no
    /// `Content-Type` at all, as `curl -T` sends a file: for upload URLs whose signature covers
    /// the headers (pre-signed S3 and GCS `PUT` URLs), where any media type Courier guessed would
    /// break it. ``contentType`` is empty. (URLSession on Linux labels a `POST` body without a
    /// media type as form data whatever Courier does; `PUT`, the usual upload, goes without.)
    ///
    /// ```swift
    /// let upload = Request<Data>(method: .put, url: presignedURL, body: .untypedFile(archive))
    /// ```
    case untypedFile(URL)
    /// A `multipart/form-data` form (RFC 7578). Courier writes it into a temporary file and
    /// uploads from that file, so file parts of any size never sit in memory; the temporary file
    /// is deleted when the upload ends, whichever way it ends.
    case multipart(MultipartForm)

    /// `value` encoded as JSON with `encoder` rather than the network's ``Network/jsonEncoder``,
    /// when the encoding is evaluated (a failure is ``NetworkError/encodingFailed(_:)``).
    ///
    /// ```swift
    /// let encoder = JSONEncoder()
    /// encoder.keyEncodingStrategy = .convertToSnakeCase
    /// let request = Request<Data>(method: .post, url: usersURL, body: .json(newUser, encoder: encoder))
    /// ```
    public static func json(_ value: any Encodable & Sendable, encoder: JSONEncoder) -> RequestBody {
        .encodedJSON(value, encoder: encoder)
    }

    /// `value` encoded as `application/x-www-form-urlencoded` fields by `encoder`, when the
    /// body is encoded (a failure is ``NetworkError/encodingFailed(_:)``).
    ///
    /// In the body a space is sent as `+` and a `+` as `%2B`, as the form encoding defines
    /// (every server form parser reads them back that way).
    ///
    /// ```swift
    /// struct SignUp: Encodable, Sendable { let email: String; let plan: String; let tags: [String] }
    /// let body = RequestBody.form(SignUp(email: "jo+news@example.com", plan: "pro", tags: ["a", "b"]))
    /// // email=jo%2Bnews%40example.com&plan=pro&tags%5B%5D=a&tags%5B%5D=b
    /// ```
    public static func form(_ value: any Encodable & Sendable, encoder: URLQueryEncoder = URLQueryEncoder()) -> RequestBody {
        .encodedForm(value, encoder: encoder)
    }

    /// The `Content-Type` Courier sends with this body; empty for ``untypedFile(_:)``, which is
    /// sent without one.
    public var contentType: String {
        switch self {
        case let .data(_, contentType): return contentType
        case .json, .encodedJSON: return "application/json"
        case .form, .encodedForm: return "application/x-www-form-urlencoded"
        case .text: return "text/plain; charset=utf-8"
        case let .file(url): return MIMEType.forPathExtension(url.pathExtension)
        case .untypedFile: return ""
        case let .multipart(form): return form.contentType
        }
    }

    /// Whether the body is uploaded from a file rather than from memory.
    var isStreamed: Bool {
        switch self {
        case .file, .untypedFile, .multipart: return true
        default: return false
        }
    }

    /// Encodes the body into the bytes to send, in memory.
    ///
    /// Courier itself never calls this for `.file` and `.multipart` bodies, which it streams from
    /// disk; for those it reads the whole body into memory, for small bodies and tests only.
    ///
    /// - Throws: ``NetworkError/encodingFailed(_:)`` when a `.json` or encoded form value cannot
    ///   be encoded, ``NetworkError/fileSystem(_:_:)`` when a file cannot be read.
    public func encoded() throws -> Data {
        switch self {
        case let .data(data, _):
            return data
        case let .json(value):
            return try Self.encodeJSON(value, with: SharedCoders.encoder)
        case let .encodedJSON(value, encoder):
            return try Self.encodeJSON(value, with: encoder)
        case let .form(fields):
            return Data(FormEncoding.encode(fields).utf8)
        case let .encodedForm(value, encoder):
            do {
                return Data(try encoder.encodedForm(value).utf8)
            } catch {
                throw NetworkError.encodingFailed(error)
            }
        case let .text(text):
            return Data(text.utf8)
        case let .file(url), let .untypedFile(url):
            do {
                return try Data(contentsOf: url)
            } catch {
                throw NetworkError.fileSystem(url, error)
            }
        case let .multipart(form):
            do {
                return try form.encodedData()
            } catch {
                throw NetworkError.encodingFailed(error)
            }
        }
    }

    private static func encodeJSON(_ value: any Encodable, with encoder: JSONEncoder) throws -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw NetworkError.encodingFailed(error)
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
