import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one download destination: the destination itself, the `.partial` file the body
/// is written to, and the sidecar that makes the partial file resumable.
///
/// For `report.pdf`: `report.pdf.partial` holds the bytes so far and `report.pdf.partial.json`
/// holds where they came from. Both are documented, visible, and removed once the download
/// completes; nothing else is ever left behind.
///
/// Safe in a folder others can write to: no symbolic link at any of the three paths is ever
/// followed, and whatever is found at the `.partial` or sidecar path that Courier did not
/// make (a link, a FIFO, a hard link to another file) is removed, not used. A destination that
/// is a device or a FIFO is written directly instead (see ``Start/direct``).
package struct DownloadFiles: Sendable {
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
        /// The response's strong `ETag`, or else its `Last-Modified` (``RangeValidator``).
        var validator: String
        /// Bytes in the partial file when the record was written (informational: the file's
        /// real size is what a resume uses, in case the process died before updating this).
        var bytes: Int64
        /// The whole resource's length as the first response gave it, if it did: a `206` for
        /// another length is another version. Absent from records written before it existed.
        var total: Int64?

        /// Whether the bytes may be the start of what `other` serves. By default the same
        /// resource is enough: the same scheme, host, port and path, whatever the query, so that a
        /// pre-signed URL (S3, GCS, CDN tokens), whose signature changes each time it is issued,
        /// still resumes; `If-Range` with the ``validator`` then makes sure the bytes belong to
        /// the same entity (a changed one comes back whole, `200`). That takes a strong `ETag`:
        /// a date, or a weak tag, could be shared by two files a query tells apart. `exactly`
        /// asks for the very same URL, query included (``DownloadOptions/requireSameURL``).
        func matches(_ other: String?, exactly: Bool) -> Bool {
            guard let other else { return false }
            if url == other { return true }
            guard !exactly, RangeValidator.isStrongTag(validator),
                  let recorded = URLComponents(string: url), let wanted = URLComponents(string: other) else { return false }
            return Self.resource(recorded) == Self.resource(wanted)
        }

        /// Scheme, host and port (the scheme's default when absent), compared without case, and
        /// the path as sent.
        private static func resource(_ components: URLComponents) -> [String]? {
            guard let scheme = components.scheme?.lowercased(), let host = components.percentEncodedHost?.lowercased() else {
                return nil
            }
            let port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return [scheme, host, String(port), components.percentEncodedPath]
        }
    }

    /// How an attempt writes the body, as decided from what is on disk when its task is made.
    enum Start: Sendable {
        /// The destination is a device or a FIFO: written directly (no `.partial` file, no
        /// sidecar, no resume, no rename), as `curl -o /dev/null` does.
        case direct
        /// From byte 0, into a new `.partial` file.
        case fresh
        /// After the bytes of this `.partial` file, already open (and locked): its size when
        /// opened is the offset asked for, so nothing can change between measuring it and writing
        /// to it. `record` is what a `206` must match to continue it (``RangeValidator``).
        case resume(PartialFile, record: ResumeRecord)
    }

    /// Checks the destination and decides how the attempt starts: resumes when the sidecar says
    /// the `.partial` file came from `url` (see ``ResumeRecord/matches(_:exactly:)``) and that
    /// file is a plain file of Courier's; otherwise removes both (without following a link) and
    /// starts from byte 0. Throws ``busyError`` when another download is writing the `.partial` file.
    func prepareAttempt(options: DownloadOptions, allowResume: Bool, url: String?) throws(NetworkError) -> Start {
        if try checkDestination(options: options) == .special { return .direct }
        guard let file = try lockExistingPartial() else {
            removeResumeState()   // no partial file, or one that is not Courier's: nothing to resume
            return .fresh
        }
        if allowResume, !options.contains(.noResume), file.sizeAtOpen > 0, let record = loadRecord(),
           record.matches(url, exactly: options.contains(.requireSameURL)) {
            return .resume(file, record: record)
        }
        // Bytes of unknown origin cannot be trusted: start clean. Removed while still locked, so
        // no other download can have taken them over in between.
        removeResumeState()
        try? file.close()
        return .fresh
    }

    /// A new, empty `.partial` file, created (and locked) where nothing is, with the permission
    /// bits of the file it will replace. Whatever is at the path is removed first, not followed,
    /// unless another download holds it: then ``busyError``.
    func createPartial() throws(NetworkError) -> PartialFile {
        if let existing = try lockExistingPartial() {
            removeResumeState()
            try? existing.close()
        } else {
            removeResumeState()
        }
        let file = try PartialFile.create(at: partial, mode: modeToKeep())
        // Another download may have opened the new file in the moment before the lock: it then
        // holds it, or has removed it, and this one must not write it.
        guard file.tryLock(), file.isStill(at: partial) else {
            try? file.close()
            throw busyError
        }
        return file
    }

    /// The regular `.partial` file of Courier's at its path, opened and locked (see
    /// ``PartialFile/tryLock()``), or `nil` when there is none or what is there cannot be trusted.
    /// Throws ``busyError`` when another download holds its lock. Once locked, the path must still
    /// name the file: one that a finishing download renamed away, or removed, is looked for again.
    private func lockExistingPartial() throws(NetworkError) -> PartialFile? {
        for _ in 0..<3 {
            guard let file = PartialFile.openForResume(at: partial) else { return nil }
            guard file.tryLock() else {
                try? file.close()
                // An ended download of this process still closing it: wait for that, then look again.
                guard ClosingPartials.shared.waitUntilClosed(partial.path, timeout: 10) else { throw busyError }
                continue
            }
            if file.isStill(at: partial) { return file }
            try? file.close()
        }
        throw busyError
    }

    /// Another download, in this process or another, is writing to the same destination: two
    /// writers on one `.partial` file would corrupt it, so the second is refused at once.
    var busyError: NetworkError {
        .fileSystem(partial, CocoaError(.fileLocking, userInfo: [
            NSFilePathErrorKey: partial.path,
            NSLocalizedDescriptionKey: "Another download (in this process or another) is writing to this file; "
                + "try again once it has finished."]))
    }

    /// The device or FIFO at the destination, opened for writing as it is.
    func openDirect() throws(NetworkError) -> PartialFile {
        try PartialFile.openSpecial(at: destination)
    }

    /// The permission bits of the regular file at the destination, if any: a replaced file keeps
    /// them, as a file overwritten in place (by curl, say) would. Set-id bits are not kept: a
    /// body from the network must not become a set-id program.
    func modeToKeep() -> mode_t? {
        var status = stat()
        guard lstat(destination.path, &status) == 0, status.isRegular else { return nil }
        return status.st_mode & 0o777
    }

    func loadRecord() -> ResumeRecord? {
        guard let data = PartialFile.readRegularFile(at: sidecar, limit: 64 << 10) else { return nil }
        return try? JSONDecoder().decode(ResumeRecord.self, from: data)
    }

    /// Writes the sidecar through a new file renamed over it, owner-only: it holds the URL,
    /// which may carry a token.
    func saveRecord(_ record: ResumeRecord) throws(NetworkError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw .fileSystem(sidecar, error)
        }
        try Self.replace(sidecar, with: data, mode: 0o600)
    }

    /// Removes the partial file and its sidecar (whichever exist); a link is removed itself.
    func removeResumeState() {
        unlink(partial.path)
        unlink(sidecar.path)
    }

    /// What the destination path holds, as far as a download is concerned.
    enum DestinationKind {
        /// Nothing, or something the finished download replaces (a regular file, a link).
        case replaceable
        /// A device or a FIFO: written directly, never replaced.
        case special
    }

    /// Checks the destination before any byte is requested, so that a download that could never
    /// be saved fails at once rather than after the transfer.
    func checkDestination(options: DownloadOptions) throws(NetworkError) -> DestinationKind {
        var status = stat()
        // lstat: a link at the destination counts as something there (it would be replaced).
        let exists = lstat(destination.path, &status) == 0
        if exists, status.isSpecial { return .special }
        if exists, !options.contains(.replaceExisting) {
            throw .destinationExists(destination)
        }
        let fileManager = FileManager.default
        let folder = destination.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if !fileManager.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard options.contains(.createDirectories) else {
                throw .fileSystem(folder, CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: folder.path]))
            }
            do {
                try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .fileSystem(folder, error)
            }
        } else if !isDirectory.boolValue {
            throw .fileSystem(folder, CocoaError(.fileWriteInvalidFileName, userInfo: [NSFilePathErrorKey: folder.path]))
        }
        // The sidecar's is the longest name: if it cannot exist, the download could only fail
        // after the first response, leaving a stray `.partial` file.
        let nameLimit = pathconf(folder.path, Int32(_PC_NAME_MAX))
        if nameLimit > 0, sidecar.lastPathComponent.utf8.count > nameLimit {
            throw .fileSystem(destination, POSIXError(.ENAMETOOLONG))
        }
        guard fileManager.isWritableFile(atPath: folder.path) else {
            throw .fileSystem(folder, CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: folder.path]))
        }
        return .replaceable
    }

    /// Moves the finished partial file into place and closes it (its lock held until the rename is
    /// done): `rename(2)`, so the
    /// destination appears whole or not at all, and an existing file (or a link: the link
    /// itself, never what it points to) is replaced atomically. A regular file it replaces passes
    /// on its permission bits.
    func moveIntoPlace(_ file: PartialFile, options: DownloadOptions) throws(NetworkError) {
        do throws(NetworkError) {
            var status = stat()
            let exists = lstat(destination.path, &status) == 0
            if exists, !options.contains(.replaceExisting) { throw .destinationExists(destination) }
            if exists, status.isRegular { try file.setMode(status.st_mode & 0o777) }
            // Checked while the file is open, so its inode number cannot have been reused.
            guard file.isStill(at: partial) else {
                throw .fileSystem(partial, CocoaError(.fileWriteUnknown, userInfo: [
                    NSFilePathErrorKey: partial.path,
                    NSLocalizedDescriptionKey: "The partial file was replaced while it was being written."]))
            }
        } catch {
            try? file.close()
            throw error
        }
        // Renamed while still locked: a download that took the lock the moment it was released
        // would otherwise find the finished file at the `.partial` path and append to it.
        try file.close { () throws(NetworkError) in
            guard rename(partial.path, destination.path) == 0 else {
                throw .fileSystem(destination, POSIXError.current)
            }
            unlink(sidecar.path)
        }
    }

    /// Writes `data` to a new file next to `target` and renames it over `target`: readers never
    /// see half a file, and a link at `target` is replaced, never written through. `mode` as for
    /// ``PartialFile/create(at:mode:)``.
    static func replace(_ target: URL, with data: Data, mode: mode_t?) throws(NetworkError) {
        let temporary = try PartialFile.createUnique(in: target.deletingLastPathComponent(), mode: mode)
        do throws(NetworkError) {
            try temporary.write(data)
            try temporary.close()
            guard rename(temporary.url.path, target.path) == 0 else { throw .fileSystem(target, POSIXError.current) }
        } catch {
            try? temporary.close()
            unlink(temporary.url.path)
            throw error
        }
    }

    /// Whether `url` is a device or a FIFO (written directly, never replaced or removed).
    package static func isSpecialFile(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.isSpecial
    }

    /// Writes `data` as the whole of `destination` by the rules of a download: a device or FIFO
    /// is written directly; anything else is replaced atomically (a regular file's permission
    /// bits kept, a link replaced rather than followed). For the `courier` tool, which saves an
    /// error page with `-o` as curl does.
    package static func save(_ data: Data, to destination: URL) throws(NetworkError) {
        let files = DownloadFiles(destination: destination)
        var status = stat()
        guard lstat(files.destination.path, &status) == 0, status.isSpecial else {
            return try replace(files.destination, with: data, mode: files.modeToKeep())
        }
        let file = try files.openDirect()
        do throws(NetworkError) {
            try file.write(data)
        } catch {
            try? file.close()
            throw error
        }
        try file.close()
    }
}
