/// The `Content-Type` of a file body or a multipart file part, guessed from the file's extension.
enum MIMEType {
    /// A MIME type for common extensions; anything unknown is plain bytes, which every server accepts.
    static func forPathExtension(_ pathExtension: String) -> String {
        byExtension[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    private static let byExtension: [String: String] = [
        "txt": "text/plain",
        "html": "text/html",
        "htm": "text/html",
        "json": "application/json",
        "xml": "application/xml",
        "csv": "text/csv",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "pdf": "application/pdf",
        "zip": "application/zip",
        "gz": "application/gzip",
        "mp4": "video/mp4",
        "mp3": "audio/mpeg",
        "wav": "audio/wav",
        "bin": "application/octet-stream",
    ]
}
