import Foundation

/// A multipart/form-data body (RFC 7578): text fields, in-memory data parts and file parts.
///
/// The form only records what to send; nothing is read from disk until it is encoded. That keeps
/// building a form cheap and lets a large upload be streamed to a file with
/// ``writeEncoded(to:)`` (memory stays flat whatever the file sizes) and then sent with an upload
/// task, with ``encodedLength()`` giving the `Content-Length` up front.
///
/// Names and filenames are escaped the way browsers do it (HTML's form encoding): `"` becomes
/// `%22`, CR `%0D` and LF `%0A`, so a name can never break out of its quoted header parameter.
/// Non-ASCII characters are sent as raw UTF-8, which is what RFC 7578 §5.1 and servers expect.
///
/// ## Boundaries
/// A generated boundary carries 154 random bits, so it cannot plausibly occur in any content and
/// file contents are never scanned for it (that would mean reading every file twice). A boundary
/// you supply yourself has no such guarantee: encoding checks the text and data parts for it and
/// throws ``EncodingError/boundaryCollision(partName:)`` rather than produce a corrupt body. File
/// parts are not scanned in either case.
public struct MultipartForm: Sendable {
    /// The delimiter between parts, without the leading `--`; it also appears in ``contentType``,
    /// which is how the server finds the parts.
    public let boundary: String

    /// The parts in the order they will be encoded: a read-only view for tests and logging.
    public private(set) var parts: [Part] = []

    /// Whether ``boundary`` was generated here; only a caller-supplied boundary can plausibly
    /// collide with content, so only then are in-memory parts scanned.
    private let boundaryIsGenerated: Bool

    /// Creates an empty form.
    ///
    /// - Parameter boundary: The boundary to use, or `nil` (the default) for a fresh random one,
    ///   which is what you want unless a server or a test needs a fixed value. A supplied boundary
    ///   must be 1 to 70 characters from RFC 2046's `bchars` (letters, digits and `'()+_,-./:=?`
    ///   and space, not ending with a space); anything else is a programming error and traps,
    ///   since no valid body could be produced with it.
    public init(boundary: String? = nil) {
        if let boundary {
            precondition(Self.isValidBoundary(boundary),
                         "MultipartForm: invalid boundary \(boundary.debugDescription); RFC 2046 allows 1...70 bchars, not ending in a space")
            self.boundary = boundary
            boundaryIsGenerated = false
        } else {
            self.boundary = Self.makeBoundary()
            boundaryIsGenerated = true
        }
    }

    /// The value for the request's `Content-Type` header: `multipart/form-data; boundary=<boundary>`.
    ///
    /// The boundary is quoted only when it contains characters that are not allowed in a bare
    /// header parameter value (RFC 2045 `tspecials` such as `:` or space); generated boundaries
    /// never need it.
    public var contentType: String {
        let needsQuotes = boundary.unicodeScalars.contains { !Self.tokenScalars.contains($0) }
        return "multipart/form-data; boundary=" + (needsQuotes ? "\"\(boundary)\"" : boundary)
    }

    /// Appends a text field, sent without a `Content-Type` as browsers do for ordinary inputs.
    ///
    /// The value is sent verbatim as UTF-8 (line breaks are not normalised).
    public mutating func addField(name: String, value: String) {
        parts.append(Part(name: name, filename: nil, mimeType: nil, content: .text(value)))
    }

    /// Appends a part whose bytes are already in memory, such as a generated image or a JSON blob.
    ///
    /// - Parameters:
    ///   - name: The form field name.
    ///   - data: The part's bytes, sent as they are.
    ///   - filename: Sent as the `filename` parameter when given; servers usually need one to
    ///     treat the part as an uploaded file rather than a field.
    ///   - mimeType: The part's `Content-Type`. CR and LF are removed so it cannot inject headers.
    public mutating func addData(name: String, data: Data, filename: String? = nil,
                                 mimeType: String = "application/octet-stream") {
        parts.append(Part(name: name, filename: filename, mimeType: Self.headerSafe(mimeType),
                          content: .data(data)))
    }

    /// Appends a part whose bytes are copied from a file when the form is encoded.
    ///
    /// The file is not touched here, so a missing file is reported by the encoding calls as
    /// ``EncodingError/fileNotReadable(_:underlying:)``. It must not change size between
    /// ``encodedLength()`` and the end of encoding, or the `Content-Length` would be wrong.
    ///
    /// - Parameters:
    ///   - name: The form field name.
    ///   - fileURL: A `file:` URL; symbolic links are followed.
    ///   - filename: The `filename` parameter; defaults to the URL's last path component.
    ///   - mimeType: The part's `Content-Type`; `nil` guesses it from the file extension
    ///     (falling back to `application/octet-stream`). CR and LF are removed.
    public mutating func addFile(name: String, fileURL: URL, filename: String? = nil, mimeType: String? = nil) {
        let type = mimeType ?? MIMEType.forPathExtension(fileURL.pathExtension)
        parts.append(Part(name: name, filename: filename ?? fileURL.lastPathComponent,
                          mimeType: Self.headerSafe(type), content: .file(fileURL)))
    }

    /// Size of the encoded body in bytes, computed without reading file contents (file sizes come
    /// from file attributes), so it is cheap enough to set `Content-Length` before streaming.
    ///
    /// - Throws: ``EncodingError/fileNotReadable(_:underlying:)`` if a file part is missing, is
    ///   not a regular file or cannot be read; ``EncodingError/boundaryCollision(partName:)`` as
    ///   described in the type's documentation.
    public func encodedLength() throws -> Int64 {
        try plan().length
    }

    /// Writes the whole encoded body to `url` (created, or truncated if it exists), copying file
    /// parts in chunks of about 1 MB so memory stays flat whatever the file size.
    ///
    /// Every file part is checked before `url` is created, so a missing file leaves `url`
    /// untouched. If encoding fails later on, the partly written file is removed, since a
    /// truncated body is useless and would otherwise be left behind.
    ///
    /// - Returns: The number of bytes written, always equal to ``encodedLength()``: a file part
    ///   that shrinks or grows while being copied is an error rather than a silently wrong body.
    /// - Throws: ``EncodingError/fileNotReadable(_:underlying:)`` for a part's file,
    ///   ``EncodingError/writeFailed(_:underlying:)`` for `url` (including when `url` is one of the
    ///   form's own files, which truncating would destroy), and
    ///   ``EncodingError/boundaryCollision(partName:)``.
    @discardableResult
    public func writeEncoded(to url: URL) throws -> Int64 {
        try writeEncoded(to: url) {
            try Data().write(to: url)  // creates or truncates, and reports why when it cannot
            return try FileHandle(forWritingTo: url)
        }
    }

    /// Like ``writeEncoded(to:)``, into a new file readable and writable by its owner only, for
    /// the temporary file an upload is sent from: it holds the form's contents, which may come
    /// from private files. Created with `O_CREAT | O_EXCL` and no link followed, so nothing
    /// planted at `url` is ever written to.
    @discardableResult
    func writeEncoded(toNewPrivateFile url: URL) throws -> Int64 {
        try writeEncoded(to: url) {
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError.current }
            return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        }
    }

    /// Encodes into the file `openFile` opens at `url`.
    private func writeEncoded(to url: URL, opening openFile: () throws -> FileHandle) throws -> Int64 {
        let plan = try plan()
        guard url.isFileURL else { throw EncodingError.writeFailed(url, underlying: "not a file URL") }
        let target = url.resolvingSymlinksInPath().standardizedFileURL.path
        for case let .file(source, _) in plan.segments.map(\.body)
        where source.resolvingSymlinksInPath().standardizedFileURL.path == target {
            throw EncodingError.writeFailed(url, underlying: "the output file is one of the form's file parts")
        }

        let handle: FileHandle
        do {
            handle = try openFile()
        } catch {
            throw EncodingError.writeFailed(url, underlying: Self.describe(error))
        }
        var sink = FileSink(handle: handle, url: url)
        do {
            try encode(plan, into: &sink)
            try sink.finish()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return sink.count
    }

    /// Convenience for small forms and tests: the encoded body in memory.
    ///
    /// File parts are read whole into the result, so prefer ``writeEncoded(to:)`` for large files.
    ///
    /// - Throws: The same errors as ``encodedLength()``, plus a read failure of a file part.
    public func encodedData() throws -> Data {
        let plan = try plan()
        var sink = DataSink()
        sink.data.reserveCapacity(Int(clamping: plan.length))
        try encode(plan, into: &sink)
        return sink.data
    }

    /// One entry of the form, as recorded by the `add…` methods.
    public struct Part: Sendable, Equatable {
        /// What a part carries; files are referenced, not loaded.
        public enum Content: Sendable, Equatable {
            /// A text field value, sent as UTF-8.
            case text(String)
            /// Bytes held in memory.
            case data(Data)
            /// A file whose bytes are copied at encoding time.
            case file(URL)
        }

        /// The form field name (unescaped; escaping happens at encoding).
        public let name: String
        /// The `filename` parameter, if any (unescaped). Always `nil` for text fields.
        public let filename: String?
        /// The part's `Content-Type`; `nil` for text fields, which are sent without one.
        public let mimeType: String?
        /// The part's payload.
        public let content: Content
    }

    /// Why encoding a form failed; each case names the file involved and the system's reason, so
    /// the message can be shown or logged as is.
    public enum EncodingError: Error, Sendable, Equatable {
        /// A file part is missing, is not a regular file, cannot be opened or read, or changed size
        /// while it was being encoded.
        case fileNotReadable(URL, underlying: String)
        /// The output file of ``MultipartForm/writeEncoded(to:)`` could not be created or written.
        case writeFailed(URL, underlying: String)
        /// A text or data part contains `--` followed by a caller-supplied boundary, which would
        /// end the part early on the server. Use a generated boundary (or another one).
        case boundaryCollision(partName: String)
    }

    // MARK: - Encoding

    /// How much the file copy reads at once: large enough for throughput, small enough that
    /// memory does not depend on file sizes.
    static let chunkSize = 1 << 20

    /// A part reduced to what is written: its header block, then its payload.
    private struct Segment {
        enum Body {
            case bytes(Data)
            case file(URL, size: Int64)
        }
        let header: Data
        let body: Body
    }

    /// Everything needed to encode, with file sizes taken once so the length and the copy agree.
    private struct Plan {
        var segments: [Segment] = []
        var trailer = Data()
        var length: Int64 = 0
    }

    /// Validates the parts (files exist and are readable; no boundary collision) and computes the
    /// headers and total length, without reading any file contents.
    private func plan() throws -> Plan {
        var plan = Plan()
        let crlf = Int64(2)  // every payload is followed by CRLF
        let delimiter = Data("--\(boundary)".utf8)
        for part in parts {
            var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
            if let filename = part.filename {
                header += "; filename=\"\(Self.escape(filename))\""
            }
            header += "\r\n"
            let body: Segment.Body
            switch part.content {
            case let .text(value):
                body = .bytes(Data(value.utf8))
            case let .data(data):
                header += "Content-Type: \(part.mimeType ?? "application/octet-stream")\r\n"
                body = .bytes(data)
            case let .file(url):
                header += "Content-Type: \(part.mimeType ?? "application/octet-stream")\r\n"
                body = .file(url, size: try Self.fileSize(of: url))
            }
            header += "\r\n"
            if case let .bytes(bytes) = body, !boundaryIsGenerated, bytes.range(of: delimiter) != nil {
                throw EncodingError.boundaryCollision(partName: part.name)
            }
            let segment = Segment(header: Data(header.utf8), body: body)
            switch body {
            case let .bytes(bytes): plan.length += Int64(bytes.count)
            case let .file(_, size): plan.length += size
            }
            plan.length += Int64(segment.header.count) + crlf
            plan.segments.append(segment)
        }
        plan.trailer = Data("--\(boundary)--\r\n".utf8)
        plan.length += Int64(plan.trailer.count)
        return plan
    }

    /// Streams the planned body into `sink`.
    private func encode<Sink: ByteSink>(_ plan: Plan, into sink: inout Sink) throws {
        let crlf = Data("\r\n".utf8)
        for segment in plan.segments {
            try sink.write(segment.header)
            switch segment.body {
            case let .bytes(bytes): try sink.write(bytes)
            case let .file(url, size): try Self.copy(url, size: size, into: &sink)
            }
            try sink.write(crlf)
        }
        try sink.write(plan.trailer)
    }

    /// Copies exactly `size` bytes of the file in chunks, failing if the file no longer has that
    /// size: the headers and `Content-Length` were computed from it.
    private static func copy<Sink: ByteSink>(_ url: URL, size: Int64, into sink: inout Sink) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw EncodingError.fileNotReadable(url, underlying: describe(error))
        }
        defer { try? handle.close() }
        var remaining = size
        while remaining > 0 {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: Int(min(remaining, Int64(chunkSize))))
            } catch {
                throw EncodingError.fileNotReadable(url, underlying: describe(error))
            }
            guard let chunk, !chunk.isEmpty else {
                throw EncodingError.fileNotReadable(
                    url, underlying: "file shrank while being encoded (\(size - remaining) of \(size) bytes read)")
            }
            try sink.write(chunk)
            remaining -= Int64(chunk.count)
        }
        let extra: Data?
        do {
            extra = try handle.read(upToCount: 1)
        } catch {
            throw EncodingError.fileNotReadable(url, underlying: describe(error))
        }
        if let extra, !extra.isEmpty {
            throw EncodingError.fileNotReadable(url, underlying: "file grew while being encoded (expected \(size) bytes)")
        }
    }

    /// The size of a readable regular file, from its attributes (symbolic links followed).
    private static func fileSize(of url: URL) throws -> Int64 {
        guard url.isFileURL else {
            throw EncodingError.fileNotReadable(url, underlying: "not a file URL")
        }
        // attributesOfItem describes a link itself, not its target, so resolve links first.
        let path = url.resolvingSymlinksInPath().path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw EncodingError.fileNotReadable(url, underlying: describe(error))
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw EncodingError.fileNotReadable(url, underlying: "not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw EncodingError.fileNotReadable(url, underlying: "permission denied")
        }
        let size: Int64? = switch attributes[.size] {
        case let number as NSNumber: number.int64Value
        case let value as UInt64: Int64(exactly: value)
        case let value as Int: Int64(value)
        case let value as Int64: value
        default: nil
        }
        guard let size, size >= 0 else {
            throw EncodingError.fileNotReadable(url, underlying: "file size unavailable")
        }
        return size
    }

    // MARK: - Helpers

    /// HTML's form encoding of names and filenames: only `"`, CR and LF are replaced, everything
    /// else (non-ASCII included) is kept as is. Works on scalars because "\r\n" is one Character.
    static func escape(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result.append(contentsOf: "%22".unicodeScalars)
            case "\r": result.append(contentsOf: "%0D".unicodeScalars)
            case "\n": result.append(contentsOf: "%0A".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// Removes CR and LF from a header value so a caller-supplied MIME type cannot add headers.
    private static func headerSafe(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))
    }

    /// RFC 2046 `bcharsnospace`; `bchars` adds the space.
    private static let boundaryScalars = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".unicodeScalars)

    /// Characters allowed in an unquoted header parameter value (RFC 2045 token), among `bchars`.
    private static let tokenScalars = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'+_-.".unicodeScalars)

    /// Whether `boundary` is 1...70 `bchars` not ending in a space (RFC 2046 §5.1.1).
    static func isValidBoundary(_ boundary: String) -> Bool {
        let scalars = boundary.unicodeScalars
        guard (1...70).contains(scalars.count), scalars.last != " " else { return false }
        return scalars.allSatisfy { $0 == " " || boundaryScalars.contains($0) }
    }

    /// "courier-" + a UUID's 32 hex digits (122 random bits) + 8 more random hex digits: 48
    /// token-safe characters and 154 random bits, so collisions with content are not a concern.
    private static func makeBoundary() -> String {
        let uuid = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
        return "courier-" + uuid + String(repeating: "0", count: 8 - suffix.count) + suffix
    }

    /// A readable reason for a Foundation error, for the `underlying` strings.
    fileprivate static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
            return "\(nsError.localizedDescription) (\(posix.domain) \(posix.code))"
        }
        return "\(nsError.localizedDescription) (\(nsError.domain) \(nsError.code))"
    }
}

extension MultipartForm.EncodingError: LocalizedError {
    /// A one-line message naming the file and the reason, for logs and alerts.
    public var errorDescription: String? {
        switch self {
        case let .fileNotReadable(url, underlying):
            return "Cannot read multipart file part \(url.path): \(underlying)"
        case let .writeFailed(url, underlying):
            return "Cannot write multipart body to \(url.path): \(underlying)"
        case let .boundaryCollision(partName):
            return "Multipart part \"\(partName)\" contains the form's boundary"
        }
    }
}

// MARK: - Sinks

/// Where encoded bytes go; lets the in-memory and on-disk encoders share one code path.
private protocol ByteSink {
    mutating func write(_ data: Data) throws
}

/// Collects the body in memory.
private struct DataSink: ByteSink {
    var data = Data()
    mutating func write(_ bytes: Data) { data.append(bytes) }
}

/// Writes to a file, gathering the small header and field writes into one buffer so a form with
/// many small parts does not cost a system call per line; large chunks go straight through.
private struct FileSink: ByteSink {
    let handle: FileHandle
    let url: URL
    private var buffer = Data()
    private(set) var count: Int64 = 0

    init(handle: FileHandle, url: URL) {
        self.handle = handle
        self.url = url
    }

    mutating func write(_ data: Data) throws {
        if data.count >= MultipartForm.chunkSize / 2 {
            try flush()
            try put(data)
        } else {
            buffer.append(data)
            if buffer.count >= MultipartForm.chunkSize / 2 { try flush() }
        }
        count += Int64(data.count)
    }

    /// Flushes and closes; closing can be where a deferred write error (full disk) shows up.
    mutating func finish() throws {
        try flush()
        do {
            try handle.close()
        } catch {
            throw MultipartForm.EncodingError.writeFailed(url, underlying: MultipartForm.describe(error))
        }
    }

    private mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try put(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func put(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw MultipartForm.EncodingError.writeFailed(url, underlying: MultipartForm.describe(error))
        }
    }
}
