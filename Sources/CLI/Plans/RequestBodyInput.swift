import Courier
import Foundation

/// The request body given by `--data` (and its kin), `--json`, `--form` or `--upload-file`.
///
/// Files are checked (or read, for `--data @file`) here, before any connection is made, so a
/// typo in a path fails at once with curl's "read error" rather than half-way through a request.
struct RequestBodyInput {
    let body: RequestBody
    /// The option that gave the body, for messages.
    let optionName: String
    /// `--upload-file`: `PUT` by default, and names the resource when the URL ends with `/`.
    let isUpload: Bool
    let isJSON: Bool
    let uploadedFileName: String?

    /// `nil` when no body option was given. `-d` counts as `--data` here: the caller has
    /// established that the command is a request.
    init?(_ options: Options, standardInput: () -> Data, warn: (String) -> Void = { _ in }) throws(Failure) {
        let given = [
            options.dataArguments.isEmpty ? nil : "--data",
            options.json == nil ? nil : "--json",
            options.form.isEmpty ? nil : "--form",
            options.uploadFile == nil ? nil : "--upload-file",
        ].compactMap { $0 }
        guard let optionName = given.first else { return nil }
        guard given.count == 1 else { throw .usage("choose one of \(given.joined(separator: ", ")) for the body") }
        self.optionName = optionName
        isUpload = options.uploadFile != nil
        isJSON = options.json != nil
        uploadedFileName = options.uploadFile.flatMap { $0 == "-" ? nil : URL(fileURLWithPath: $0).lastPathComponent }

        if !options.jsonPieces.isEmpty {
            var content = Data()
            for piece in options.jsonPieces { content += try Self.requiredContent(of: piece, standardInput: standardInput) }
            body = .data(content, contentType: "application/json")
        } else if !options.dataArguments.isEmpty {
            // Several pieces are joined with '&', as curl does, so fields can be given one by one.
            body = .data(FormData.encoded(options.dataArguments, standardInput: standardInput, warn: warn),
                         contentType: "application/x-www-form-urlencoded")
        } else if !options.form.isEmpty {
            body = .multipart(try Self.form(options.form))
        } else if let path = options.uploadFile {
            // Sent with no Content-Type, as curl -T sends a file: a pre-signed URL's signature
            // may cover the headers, and any guess would break it.
            if path == "-" {
                body = .data(standardInput(), contentType: "")
            } else {
                let file = URL(fileURLWithPath: path)
                do throws(Failure) {
                    try Self.checkReadable(file)
                } catch {
                    throw Failure(error.exitCode, error.message, isShownWhenSilent: true)
                }
                body = .untypedFile(file)
            }
        } else {
            return nil
        }
    }

    /// `TEXT` as UTF-8, `@FILE` as the file's bytes, `@-` stdin. A file that cannot be read is
    /// nothing, as in curl ("this makes an empty POST"), with a warning unless `-s`; `warn`
    /// receives it.
    static func content(of argument: String, standardInput: () -> Data, warn: (String) -> Void = { _ in }) -> Data {
        readableContent(of: argument, standardInput: standardInput, warn: warn) ?? Data()
    }

    /// The same, `nil` for a file that cannot be read.
    static func readableContent(of argument: String, standardInput: () -> Data, warn: (String) -> Void) -> Data? {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        if path == "-" { return standardInput() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            warn("cannot read \(path): \(Failure.describe(error)); it sends nothing")
            return nil
        }
    }

    /// `TEXT` as UTF-8, `@FILE` as the file's bytes, `@-` stdin; a file that cannot be read is
    /// curl's read error (exit 26): for `--json`, whose body would otherwise be no JSON at all.
    static func requiredContent(of argument: String, standardInput: () -> Data) throws(Failure) -> Data {
        guard argument.hasPrefix("@"), argument != "@-" else { return content(of: argument, standardInput: standardInput) }
        let path = String(argument.dropFirst())
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(.readError, "cannot read \(path): \(Failure.describe(error))")
        }
    }

    /// A boundary of curl's shape (libcurl's mime.c): 24 dashes and 16 random lowercase hex
    /// digits. Servers do not care, but the body's length does: a curl line must send as many
    /// bytes with courier (curl's test suite compares `Content-Length`).
    static func curlBoundary() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "-", count: 24) + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `name=value` fields and `name=@path[;type=MIME][;filename=NAME]` files, as curl's -F.
    private static func form(_ fields: [String]) throws(Failure) -> MultipartForm {
        var form = MultipartForm(boundary: curlBoundary())
        for field in fields {
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                throw .usage("--form needs name=value or name=@file, not '\(field)'")
            }
            let name = String(field[..<equals])
            let value = String(field[field.index(after: equals)...])
            guard value.hasPrefix("@") else {
                form.addField(name: name, value: value)
                continue
            }
            var attributes = value.dropFirst().components(separatedBy: ";")
            let file = URL(fileURLWithPath: attributes.removeFirst())
            var mimeType: String?
            var filename: String?
            for attribute in attributes {
                if attribute.hasPrefix("type=") { mimeType = String(attribute.dropFirst(5)) }
                else if attribute.hasPrefix("filename=") { filename = String(attribute.dropFirst(9)) }
                else { throw .usage("--form: unknown attribute '\(attribute)' in '\(field)' (type= or filename=)") }
            }
            try checkReadable(file)
            form.addFile(name: name, fileURL: file, filename: filename, mimeType: mimeType)
        }
        return form
    }

    static func checkReadable(_ file: URL) throws(Failure) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw Failure(.readError, "cannot read \(file.path): no such file")
        }
        guard !isDirectory.boolValue else { throw Failure(.readError, "cannot read \(file.path): it is a folder") }
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw Failure(.readError, "cannot read \(file.path): permission denied")
        }
    }
}
