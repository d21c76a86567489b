import Foundation

extension Network {
    /// Downloads the body of `request` to a file, streaming it to disk: memory stays flat
    /// whatever the size.
    ///
    /// The bytes go to `<destination>.partial`; only a complete body with an accepted status is
    /// moved to `destination` (atomically). After a cancel, a deadline, a lost connection or a
    /// disk error, the partial file and its sidecar `<destination>.partial.json` stay, and the
    /// next download of the same resource (scheme, host, port and path: a re-signed query still
    /// matches, unless ``DownloadOptions/requireSameURL``) to the same destination — even from
    /// another process — asks the server for the rest only (`Range` + `If-Range`), starting over
    /// cleanly if the file changed.
    ///
    /// - Parameters:
    ///   - request: What to fetch. Its `timeout` is the overall deadline, as for any request:
    ///     give large downloads a large one.
    ///   - destination: The file to create.
    ///   - options: Resume, replace and folder behaviour; see ``DownloadOptions``.
    ///   - callbackQueue: Where `progress` and `completion` run; defaults to the network's ``callbackQueue``.
    ///   - progress: Bytes of the whole file (a resumed download starts at its offset), throttled,
    ///     monotonic, ending at 100%.
    ///   - completion: The destination URL, or the error.
    /// - Returns: A handle to cancel the download; cancelling keeps the partial file for a resume.
    @discardableResult @preconcurrency
    public func download<R: NetworkRequest>(
        _ request: R,
        to destination: URL,
        options: DownloadOptions = [],
        callbackQueue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<URL, any Error>) -> Void
    ) -> NetworkTask {
        core.download(request, to: destination, options: options,
                      target: .queue(callbackQueue ?? self.callbackQueue), progress: progress, completion: completion)
    }
}

extension NetworkCore {
    func download<R: NetworkRequest>(
        _ request: R, to destination: URL, options: DownloadOptions, target: CallbackTarget,
        progress: (@Sendable (TransferProgress) -> Void)?, completion: @escaping @Sendable (Result<URL, any Error>) -> Void
    ) -> NetworkTask {
        let request = withCoders(request)
        let baseRequest = prepare(request)
        let terms = RequestTerms(request)
        let body = DownloadBody(request: consume request, destination: destination, options: options,
                                recordedURL: try? baseRequest.get().url.absoluteString, completion: completion)
        return submit(Transfer(core: self, terms: terms, baseRequest: baseRequest, body: body,
                               delivery: Delivery(target: target, progress: progress)))
    }
}
