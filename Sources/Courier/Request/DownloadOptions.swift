/// How ``Network/download(_:to:options:callbackQueue:progress:completion:)`` treats the files around it.
public struct DownloadOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Ignore (and delete) a `.partial` file left by an earlier attempt and start from the first
    /// byte; and keep nothing behind if this attempt fails.
    public static let noResume = DownloadOptions(rawValue: 1 << 0)
    /// Replace a file already at the destination (atomically, once the download is complete).
    /// Without it an existing destination fails the download with ``NetworkError/destinationExists(_:)``.
    public static let replaceExisting = DownloadOptions(rawValue: 1 << 1)
    /// Create the destination's folder (and its parents) if missing. Without it a missing folder
    /// fails the download with ``NetworkError/fileSystem(_:_:)``.
    public static let createDirectories = DownloadOptions(rawValue: 1 << 2)
    /// Resume a `.partial` file only for the very URL it was recorded for, query included.
    ///
    /// Without it, a partial file recorded with a strong `ETag` is resumed for any URL of the
    /// same scheme, host, port and path, so that a pre-signed URL (S3, GCS, a CDN token), whose
    /// query changes every time it is issued, still resumes; `If-Range` with that `ETag` makes
    /// the server send the whole file (`200`, and the download starts over) if it is not the
    /// same entity. (A partial file recorded with only `Last-Modified`, or a weak `ETag`, resumes
    /// for its exact URL alone: two files a query tells apart may share a date.) Use this option
    /// where the query selects a different file (`?id=…`) and the server's `ETag`s might not
    /// tell them apart.
    public static let requireSameURL = DownloadOptions(rawValue: 1 << 3)
}
