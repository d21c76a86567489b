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
    init?(_ options: Options, standardInput: () -> Data) throws(Failure) {
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

        if let json = options.json {
            body = .data(try Self.content(of: json, standardInput: standardInput), contentType: "application/json")
        } else if !options.dataArguments.isEmpty {
            // Several pieces are joined with '&', as curl does, so fields can be given one by one.
            body = .data(try FormData.encoded(options.dataArguments, standardInput: standardInput),
                         contentType: "application/x-www-form-urlencoded")
        } else if !options.form.isEmpty {
            body = .multipart(try Self.form(options.form))
        } else if let path = options.uploadFile {
            if path == "-" {
                body = .data(standardInput(), contentType: "application/octet-stream")
            } else {
                let file = URL(fileURLWithPath: path)
                try Self.checkReadable(file)
                body = .file(file)
            }
        } else {
            return nil
        }
    }

    /// `TEXT` as UTF-8, `@FILE` as the file's bytes (unchanged: no newline stripping), `@-` stdin.
    static func content(of argument: String, standardInput: () -> Data) throws(Failure) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        if path == "-" { return standardInput() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(.readError, "cannot read \(path): \(Failure.describe(error))")
        }
    }

    /// `name=value` fields and `name=@path[;type=MIME][;filename=NAME]` files, as curl's -F.
    private static func form(_ fields: [String]) throws(Failure) -> MultipartForm {
        var form = MultipartForm()
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

    private static func checkReadable(_ file: URL) throws(Failure) {
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
