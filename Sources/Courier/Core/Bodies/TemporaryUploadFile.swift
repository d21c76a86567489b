import Foundation

/// The temporary file a `.multipart` body is encoded into before upload (URLSession on Linux
/// crashes on stream bodies, so the form is written to disk and uploaded from there).
///
/// The file is created owner-only (`0600`) under an unguessable name that must not exist yet,
/// so other users can neither read the form nor plant anything at its path.
///
/// The file is written once and reused by every task of the transfer (retries, a 307/308 that
/// repeats the body), and deleted exactly once, when the transfer ends, however it ends —
/// including when the end (a cancel) races with the writing of the file itself.
final class TemporaryUploadFile: Sendable {
    private let state = Locked<(url: URL?, ended: Bool)>((nil, false))

    /// The temporary file holding `form` encoded, written on the first call. Runs on the start
    /// queue, which runs one start at a time, so two calls never write at once.
    func write(_ form: MultipartForm) throws -> URL {
        if let written = state.withLock({ $0.url }) { return written }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-upload-\(UUID().uuidString).multipart")
        do {
            try form.writeEncoded(toNewPrivateFile: url)
        } catch let error as MultipartForm.EncodingError {
            try? FileManager.default.removeItem(at: url)
            if case let .fileNotReadable(file, _) = error { throw NetworkError.fileSystem(file, error) }
            throw NetworkError.encodingFailed(error)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw NetworkError.fileSystem(url, error)
        }
        let alreadyEnded = state.withLock { state -> Bool in
            if !state.ended { state.url = url }
            return state.ended
        }
        if alreadyEnded { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Deletes the file, if any; later writes delete their file at once.
    func remove() {
        let url = state.withLock { state -> URL? in
            state.ended = true
            defer { state.url = nil }
            return state.url
        }
        if let url { try? FileManager.default.removeItem(at: url) }
    }
}
