import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The curl engine: a ``Transport`` over libcurl's multi interface, driven by one ``CurlLoop``
/// thread per `Network`. See Courier.docc/Engines.md.
final class CurlTransport: Transport {
    let loop: CurlLoop
    let settings: CurlSettings
    /// What every task's metrics need of the settings, kept apart so that reading them at the
    /// end of each transfer copies nothing (see ``CurlMetrics``).
    let unixSocketPath: String?
    let readsConnectionID: Bool
    /// The header lines of the network's last request, for the next one (``CurlHeaderLines``).
    let headerLines = CurlHeaderLines.Cache()
    private let features: CurlFeatures
    private let callerLoops = Locked(CallerLoops())

    /// The loops blocking callers drive (``CurlCallerDriver``): the idle ones, kept with their
    /// connections for the next call, and how many are driven now.
    private struct CallerLoops {
        var idle: [CurlLoop] = []
        var driven = 0
        var invalidated = false
    }

    /// Made only where libcurl has loaded. `features` stands in for the loaded libcurl's
    /// (``CurlFeatures/loaded``) in tests that make the engine take another version's path.
    init(configuration: CurlConfiguration, maximumConcurrentRequests: Int = 6, features: CurlFeatures? = nil) {
        // `loaded` is there whenever a curl transport is made (Engine.resolve checks); the
        // fallback is the oldest libcurl's path, which is safe on any.
        let features = features ?? CurlFeatures.loaded
            ?? CurlFeatures(versionNumber: CurlFeatures.minimumVersionNumber, features: 0, sslLibrary: nil)
        self.settings = CurlSettings(configuration: configuration, features: features)
        self.unixSocketPath = configuration.connection.unixSocketPath
        self.readsConnectionID = features.numbersConnections
        self.features = features
        self.loop = CurlLoop(maximumConnectionsPerHost: settings.maximumConnectionsPerHost,
                             connectionCacheSize: CurlLoop.connectionCacheSize(forConcurrentRequests: maximumConcurrentRequests),
                             features: features)
    }

    /// Sent as asked, as curl does.
    var sendsGETBodies: Bool { true }

    /// curl's `--location-trusted` (``LibcurlOptions/sendsCredentialsToOtherHosts``).
    var keepsCredentialsAcrossOrigins: Bool { settings.connection.libcurl.sendsCredentialsToOtherHosts }

    /// libcurl paces transfers itself (`CURLOPT_MAX_RECV_SPEED_LARGE`, `…SEND…`).
    var honoursRateLimits: Bool { true }

    /// Each easy handle takes its own `CURLOPT_HTTP_VERSION`.
    var choosesHTTPVersionPerRequest: Bool { true }

    /// Every task reads its metrics from libcurl at its end (``CurlMetrics``).
    var measuresTransfers: Bool { true }

    /// Any curl loop thread, not only this network's: a blocking call on one holds up every
    /// transfer of that loop's network, its own included.
    var ownsCurrentThread: Bool { CurlLoop.isCurrentThreadALoop }

    /// A cancel always ends in `CurlTask.markCancelled` on the task's loop: removed from the multi
    /// handle, dropped from the inbox of a closed loop, or removed when the loop closes.
    var confirmsCancels: Bool { true }

    /// `httpAdditionalHeaders`, which the engine sends with every request (``CurlSettings``).
    var configuredHeaders: [(name: String, value: String)] { settings.additionalHeaders }

    /// libcurl keeps a connect timeout to the millisecond (`CURLOPT_CONNECTTIMEOUT_MS`).
    var enforcesConnectTimeouts: Bool { true }

    func makeDataTask(with request: WireRequest, options: TaskOptions) -> any TransportTask {
        CurlTask(transport: self, request: request, options: options, upload: request.body.map { .data($0) } ?? .none)
    }

    func makeUploadTask(with request: WireRequest, fromFile file: URL, options: TaskOptions) -> any TransportTask {
        CurlTask(transport: self, request: request, options: options, upload: .file(file))
    }

    /// Takes effect at once on the loop thread: no delay, no blocking, no byte after it.
    func cancel(_ task: any TransportTask) {
        task.cancel()
    }

    /// A cancel that reports `error` as the task's end (``CurlTask/fail(with:)``).
    func fail(_ task: any TransportTask, with error: NetworkError) {
        (task as? CurlTask)?.fail(with: error)
    }

    func invalidate() {
        loop.stop()
        let idle = callerLoops.withLock { loops -> [CurlLoop] in
            loops.invalidated = true
            defer { loops.idle.removeAll() }
            return loops.idle
        }
        // Nothing drives an idle loop: it is closed here. Driven ones close when their call ends.
        for loop in idle { loop.close() }
    }

    /// How many blocking callers may drive loops of their own at once: the configuration's
    /// connections per host, so that blocking calls on their own connections stay within what
    /// the `Network` allows a host (the loop thread's transfers have that many more). Calls beyond
    /// it go through the loop thread as other requests do.
    private var callerLoopLimit: Int { max(1, settings.maximumConnectionsPerHost) }

    func makeCallerDriver() -> (any CallerDriver)? {
        enum Pick { case reuse(CurlLoop), make, none }
        let limit = callerLoopLimit
        let pick = callerLoops.withLock { loops -> Pick in
            guard !loops.invalidated, loops.driven < limit else { return .none }
            loops.driven += 1
            if let loop = loops.idle.popLast() { return .reuse(loop) }
            return .make
        }
        switch pick {
        case .none:
            return nil
        case let .reuse(loop):
            return CurlCallerDriver(loop: loop, transport: self)
        case .make:
            // One transfer at a time (and the redirects it follows): the cache of a Network that
            // allows one request at once (64 connections).
            let loop = CurlLoop(maximumConnectionsPerHost: settings.maximumConnectionsPerHost,
                                connectionCacheSize: CurlLoop.connectionCacheSize(forConcurrentRequests: 1),
                                features: features, startsThread: false)
            return CurlCallerDriver(loop: loop, transport: self)
        }
    }

    /// A caller loop whose call is over: kept for the next blocking call, or closed once the
    /// transport is invalidated (or the pool is full).
    func giveBack(_ loop: CurlLoop) {
        let limit = callerLoopLimit
        let keep = callerLoops.withLock { loops -> Bool in
            loops.driven -= 1
            guard !loops.invalidated, loops.idle.count < limit else { return false }
            loops.idle.append(loop)
            return true
        }
        if !keep { loop.close() }
    }

}
