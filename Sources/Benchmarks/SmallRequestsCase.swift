import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Case 1: many small GETs (1 KB from nginx on loopback), sequential or with N in flight.
///
/// Every client uses the same `.ephemeral` session configuration (keep-alive on, no cache, no
/// cookies) and is warmed up first, so the timed requests run on open connections.
///
/// With `--http 1.1|2` (and `--cacert` for an https URL) the Courier clients run on that HTTP
/// version, up to `--concurrency` connections per host, and the report says how many connections
/// the timed requests went over (distinct local ports in their metrics): the multiplexing case
/// of scripts/bench, HTTP/2 over one connection against HTTP/1.1 over many.
///
/// `bare-multi` and `bare-easy` are libcurl itself, driven bare (see ``BareCurl``): the reference
/// for the curl engine. `--connections-per-host N` sets the Courier clients' configuration's
/// `httpMaximumConnectionsPerHost` and bare-multi's `CURLMOPT_MAX_HOST_CONNECTIONS` (0: none);
/// without it, bare-multi takes the limit of the `.ephemeral` configuration the Courier clients
/// run with, so that both queue the same way beyond it. The scaling case passes N for Courier and
/// 0 for bare-multi, so that N in flight really are N connections for both.
enum SmallRequestsCase {
    static func run(_ arguments: Arguments) {
        let client = arguments.choice("client", ["urlsession", "urlsession-delegate"] + CourierDriver.Style.allCases.map(\.rawValue)
                                      + ["bare-multi", "bare-multi-new-handles", "bare-easy"])
        let url = arguments.url("url")
        let count = arguments.int("count", default: 5000)
        let concurrency = max(1, arguments.int("concurrency", default: 1))
        let warmup = arguments.int("warmup", default: max(8, 2 * concurrency))
        let check = ResponseCheck(expectedBytes: arguments.int("expect-bytes", default: 1024))
        let engine = arguments.engine
        let perHost = arguments.string("connections-per-host", default: "").isEmpty ? nil : arguments.int("connections-per-host")
        // The Courier clients' HTTPCache (Docs/Performance.md): none (the default, like with
        // like), `store` (a cache, and every request reloads and stores its response: the cost
        // a cache adds to a request it cannot answer), or `hit` (every timed request a fresh
        // cached answer: nginx's Last-Modified makes its file fresh by heuristic).
        let cacheMode = arguments.string("cache", default: "none")
        guard ["none", "store", "hit"].contains(cacheMode) else { Arguments.fail("--cache takes none, store or hit (got \(cacheMode))") }

        // One descriptor per connection, and a margin for the process's own files and sockets.
        let descriptors = FileDescriptors.raiseLimitToHard()
        if concurrency + 64 > descriptors {
            benchmarkFailure("--concurrency \(concurrency) needs about \(concurrency + 64) file descriptors, "
                             + "and this process may open \(descriptors) (hard RLIMIT_NOFILE; raise it with ulimit -Hn)")
        }

        let wire = WireOptions(arguments, concurrency: concurrency)
        let driver: any RequestDriver
        // The per-host connection limit the client ran with (0: none), for the report.
        var hostLimit: Int?
        if client == "bare-multi" || client == "bare-multi-new-handles" {
            let limit = perHost ?? URLSessionConfiguration.ephemeral.httpMaximumConnectionsPerHost
            hostLimit = limit
            driver = BareMultiDriver(url: url, check: check, maximumConnectionsPerHost: limit,
                                     newHandlePerTransfer: client == "bare-multi-new-handles")
        } else if client == "bare-easy" {
            guard concurrency == 1 else {
                Arguments.fail("bare-easy is curl_easy_perform in a loop, one request at a time: it takes no --concurrency above 1 "
                               + "(got \(concurrency)); use bare-multi for requests in flight")
            }
            driver = BareEasyDriver(url: url, check: check)
        } else if let style = CourierDriver.Style(rawValue: client) {
            let configuration = wire?.configuration ?? .ephemeral  // a new object: `.ephemeral` makes one each time
            if let perHost { configuration.httpMaximumConnectionsPerHost = perHost }
            // Like with like: URLSession on Linux stores nothing, and every request is to reach
            // the server (a cached answer is measured on its own: Docs/Performance.md).
            configuration.urlCache = nil
            if engine == .curl { hostLimit = configuration.httpMaximumConnectionsPerHost }
            let network = Network(configuration: configuration, callbackQueue: DispatchQueue(label: "bench.callbacks"),
                                  maximumConcurrentRequests: concurrency, engine: engine, tls: wire?.tls ?? TLSOptions(),
                                  connection: wire?.connection ?? ConnectionOptions())
            if let wire { network.observers = [wire.connections] }
            var request = Request<Data>.get(url)
            if cacheMode != "none" { network.cache = HTTPCache(memoryCapacity: 4 << 20) }
            if cacheMode == "store" { request.transferOptions.cachePolicy = .reloadIgnoringLocalCacheData }
            driver = CourierDriver(style: style, network: network, request: request, check: check)
        } else if client == "urlsession-delegate" {
            driver = URLSessionDelegateDriver(configuration: .ephemeral, url: url, check: check)
        } else {
            driver = URLSessionDriver(session: URLSession(configuration: .ephemeral), url: url, check: check)
        }

        let failures = FailureTally()
        driver.run(count: warmup, concurrency: concurrency, failures: failures)
        failures.check("warm-up")

        wire?.connections.reset()
        let stopwatch = Stopwatch()
        driver.run(count: count, concurrency: concurrency, failures: failures)
        let seconds = stopwatch.elapsedSeconds
        let cpu = stopwatch.cpuSeconds
        let switches = stopwatch.contextSwitches
        failures.check("timed run")

        var report = Report(case: "small", client: client)
        report["concurrency"] = .int(concurrency)
        report["requests"] = .int(count)
        report["seconds"] = .double(seconds)
        report["requests_per_second"] = .double(Double(count) / seconds)
        report["cpu_seconds"] = .double(cpu)
        report["cpu_us_per_request"] = .double(cpu / Double(count) * 1e6)
        report["context_switches_per_request"] = .double(Double(switches) / Double(count))
        report["maxrss_bytes"] = .int(Measurement.peakRSSBytes())
        if let sockets = FileDescriptors.openSockets() { report["sockets_open"] = .int(sockets) }
        if let hostLimit { report["connections_per_host"] = .int(hostLimit) }
        if let wire {
            report["http"] = .string(wire.version)
            report["connections"] = .int(wire.connections.count)
        }
        report.emit()
    }
}

/// `--http 1.1|2` and `--cacert FILE`: the HTTP version and trust of the multiplexing case.
private struct WireOptions {
    let version: String
    let configuration: URLSessionConfiguration
    let tls: TLSOptions
    let connection: ConnectionOptions
    let connections = ConnectionCounter()

    init?(_ arguments: Arguments, concurrency: Int) {
        guard arguments.string("http", default: "") != "" else { return nil }
        version = arguments.choice("http", ["1.1", "2"])
        configuration = .ephemeral
        // As many connections as requests in flight: HTTP/1.1 needs one each.
        configuration.httpMaximumConnectionsPerHost = concurrency
        let authority = arguments.string("cacert", default: "")
        tls = authority.isEmpty ? TLSOptions() : TLSOptions(certificateAuthorities: URL(fileURLWithPath: authority))
        connection = ConnectionOptions(httpVersion: version == "2" ? .http2 : .http1_1)
    }
}

/// The connections requests went over: the distinct local ports of their transfers.
private final class ConnectionCounter: NetworkObserver {
    private let ports = Locked(Set<Int>())

    var count: Int { ports.withLock { $0.count } }

    func reset() {
        ports.withLock { $0.removeAll() }
    }

    func didFinishCollecting(_ metrics: TransferMetrics, context: RequestContext) {
        guard let port = metrics.localPort else { return }
        ports.withLock { _ = $0.insert(port) }
    }
}
