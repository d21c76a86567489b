import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Case 1: many small GETs (1 KB from nginx on loopback), sequential or with N in flight.
///
/// Every client uses the same `.ephemeral` session configuration (keep-alive on, no cache, no
/// cookies) and is warmed up first, so the timed requests run on open connections.
enum SmallRequestsCase {
    static func run(_ arguments: Arguments) {
        let client = arguments.choice("client", ["urlsession", "urlsession-delegate"] + CourierDriver.Style.allCases.map(\.rawValue))
        let url = arguments.url("url")
        let count = arguments.int("count", default: 5000)
        let concurrency = max(1, arguments.int("concurrency", default: 1))
        let warmup = arguments.int("warmup", default: max(8, 2 * concurrency))
        let check = ResponseCheck(expectedBytes: arguments.int("expect-bytes", default: 1024))
        let engine = arguments.engine

        let driver: any RequestDriver
        if let style = CourierDriver.Style(rawValue: client) {
            let network = Network(configuration: .ephemeral, callbackQueue: DispatchQueue(label: "bench.callbacks"),
                                  maximumConcurrentRequests: concurrency, engine: engine)
            driver = CourierDriver(style: style, network: network, request: .get(url), check: check)
        } else if client == "urlsession-delegate" {
            driver = URLSessionDelegateDriver(configuration: .ephemeral, url: url, check: check)
        } else {
            driver = URLSessionDriver(session: URLSession(configuration: .ephemeral), url: url, check: check)
        }

        let failures = FailureTally()
        driver.run(count: warmup, concurrency: concurrency, failures: failures)
        failures.check("warm-up")

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
        report.emit()
    }
}
