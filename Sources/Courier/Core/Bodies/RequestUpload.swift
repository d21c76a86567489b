import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a transfer sends its request's own body: from memory, from the request's file, or from
/// the temporary file a multipart form is written into (deleted by ``release()``). Shared by the
/// bodies that send it (``MemoryBody``, ``StreamBody``).
struct RequestUpload: Sendable {
    private let body: RequestBody?
    /// Made only for multipart bodies: it costs allocations on every request otherwise.
    private let file: TemporaryUploadFile?

    init(_ body: RequestBody?) {
        self.body = body
        if case .multipart? = body { file = TemporaryUploadFile() } else { file = nil }
    }

    /// Whether making the task writes a multipart body to disk: too heavy for the scheduling thread.
    var startsOffThread: Bool {
        if case .multipart? = body { return true }
        return false
    }

    /// Whether the body is uploaded from a file (`WireRequest.body` is then empty).
    var uploadsFromFile: Bool {
        switch body {
        case .file?, .untypedFile?, .multipart?: return true
        default: return false
        }
    }

    /// The task sending `request` with the body.
    func makeTask(in transport: any Transport, for request: WireRequest, options: TaskOptions) throws -> any TransportTask {
        switch body {
        case let .file(url)?, let .untypedFile(url)?:
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw NetworkError.fileSystem(url, CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]))
            }
            return transport.makeUploadTask(with: request, fromFile: url, options: options)
        case let .multipart(form)?:
            guard let file else { preconditionFailure("init makes the upload file for every multipart body") }
            return transport.makeUploadTask(with: request, fromFile: try file.write(form), options: options)
        default:
            return transport.makeDataTask(with: request, options: options)
        }
    }

    /// Upload progress: bytes of the body sent so far, forced out when the last one is.
    static func progress(sent: Int64, expected: Int64) -> BodyStep {
        let total = expected > 0 ? expected : nil
        return BodyStep(progress: TransferProgress(completedBytes: sent, totalBytes: total, direction: .upload),
                        forceProgress: sent == total)
    }

    /// Deletes the temporary file, if any.
    func release() {
        file?.remove()
    }
}
