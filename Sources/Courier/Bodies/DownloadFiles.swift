import Foundation

/// The files of one download destination: the destination itself, the `.partial` file the body
/// is written to, and the sidecar that makes the partial file resumable.
///
/// For `report.pdf`: `report.pdf.partial` holds the bytes so far and `report.pdf.partial.json`
/// holds where they came from. Both are documented, visible, and removed once the download
/// completes; nothing else is ever written.
struct DownloadFiles: Sendable {
    let destination: URL
    let partial: URL
    let sidecar: URL

    init(destination: URL) {
        self.destination = destination.standardizedFileURL
        self.partial = URL(fileURLWithPath: self.destination.path + ".partial")
        self.sidecar = URL(fileURLWithPath: self.destination.path + ".partial.json")
    }

    /// What the sidecar records: enough to ask the server for the rest, and to be sure "the rest"
    /// belongs to the same file (`If-Range` with the validator).
    struct ResumeRecord: Codable, Equatable, Sendable {
        /// The URL the bytes came from.
        var url: String
        /// The response's `ETag`, or else its `Last-Modified`.
        var validator: String
        /// Bytes in the partial file when the record was written (informational: the file's
        /// real size is what a resume uses, in case the process died before updating this).
        var bytes: Int64
    }

    func loadRecord() -> ResumeRecord? {
        guard let data = try? Data(contentsOf: sidecar) else { return nil }
        return try? JSONDecoder().decode(ResumeRecord.self, from: data)
    }

    func saveRecord(_ record: ResumeRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(record).write(to: sidecar, options: .atomic)
    }

    /// Size of the partial file, or `nil` if there is none.
    func partialSize() -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    /// Removes the partial file and its sidecar (whichever exist).
    func removeResumeState() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: sidecar)
    }

    /// Checks the destination before any byte is requested, so that a download that could never
    /// be saved fails at once rather than after the transfer.
    func checkDestination(options: DownloadOptions) throws {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: destination.path), !options.contains(.replaceExisting) {
            throw NetworkError.destinationExists(destination)
        }
        let folder = destination.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if !fileManager.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard options.contains(.createDirectories) else {
                throw NetworkError.fileSystem(folder, CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: folder.path]))
            }
            do {
                try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw NetworkError.fileSystem(folder, error)
            }
        } else if !isDirectory.boolValue {
            throw NetworkError.fileSystem(folder, CocoaError(.fileWriteInvalidFileName, userInfo: [NSFilePathErrorKey: folder.path]))
        }
        guard fileManager.isWritableFile(atPath: folder.path) else {
            throw NetworkError.fileSystem(folder, CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: folder.path]))
        }
    }

    /// Moves the finished partial file into place: `rename(2)`, so the destination appears
    /// whole or not at all (and an existing one is replaced atomically).
    func moveIntoPlace(options: DownloadOptions) throws {
        if !options.contains(.replaceExisting), FileManager.default.fileExists(atPath: destination.path) {
            throw NetworkError.destinationExists(destination)
        }
        guard rename(partial.path, destination.path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            throw NetworkError.fileSystem(destination, POSIXError(code))
        }
        try? FileManager.default.removeItem(at: sidecar)
    }
}
