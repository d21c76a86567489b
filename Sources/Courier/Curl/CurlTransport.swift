import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The curl engine: a ``Transport`` over libcurl's multi interface, driven by one ``CurlLoop``
/// thread per `Network`. See Docs/Engines.md.
final class CurlTransport: Transport {
    let registry: TransferRegistry
    let loop: CurlLoop
    let settings: CurlSettings

    init(configuration: URLSessionConfiguration, tls: TLSOptions, registry: TransferRegistry) {
        self.registry = registry
        self.settings = CurlSettings(configuration: configuration, tls: tls)
        self.loop = CurlLoop(maximumConnectionsPerHost: settings.maximumConnectionsPerHost)
    }

    /// Sent as asked, as curl does.
    var sendsGETBodies: Bool { true }

    func makeDataTask(with request: URLRequest) -> any TransportTask {
        CurlTask(transport: self, request: request, upload: request.httpBody.map { .data($0) } ?? .none)
    }

    func makeUploadTask(with request: URLRequest, fromFile file: URL) -> any TransportTask {
        CurlTask(transport: self, request: request, upload: .file(file))
    }

    /// Takes effect at once on the loop thread: no delay, no blocking, no byte after it.
    func cancel(_ task: any TransportTask) {
        task.cancel()
    }

    func invalidate() {
        loop.stop()
    }

}
