import Courier
import Foundation

/// Case 4: Courier's own cost per request, with no network: schedule → completion through the
/// stub transport (`Network(stub:)`), which answers on Courier's delegate queue exactly as
/// URLSession's delegate would. Everything else is the real path: request building, the queue
/// and its limit, the deadline timer, validation, output, delivery on the callback queue.
///
/// Reports nanoseconds per request and, when run under the `malloc-count` shim, heap allocations
/// per request, so a regression in Courier's code shows up apart from URLSession's noise.
enum OverheadCase {
    static func run(_ arguments: Arguments) {
        let client = arguments.choice("client", CourierDriver.Style.allCases.map(\.rawValue) + ["round-trip"])
        let count = arguments.int("count", default: 100_000)
        let concurrency = max(1, arguments.int("concurrency", default: 1))
        let warmup = arguments.int("warmup", default: max(1000, count / 10))
        guard let style = CourierDriver.Style(rawValue: client) else {
            return runRoundTrips(count: count, warmup: warmup)
        }
        let body = Data(repeating: 0x61, count: arguments.int("body-bytes", default: 1024))
        let url = URL(string: "http://stub.invalid/1k.bin")!

        // The canned answer is built once, and carries no header fields (the stub adds
        // Content-Length). Foundation parses every field into the HTTPURLResponse the stub builds:
        // measured, nginx's seven usual fields cost ~125,000 instructions and ~33 allocations per
        // request (Content-Type alone ~35,000), which would bury Courier's own cost, the thing
        // measured here.
        let answer = StubResponse(statusCode: 200, body: body)
        let network = Network(stub: { _ in answer }, callbackQueue: DispatchQueue(label: "bench.callbacks"),
                              maximumConcurrentRequests: concurrency)
        let driver = CourierDriver(style: style, network: network, request: .get(url),
                                   check: ResponseCheck(expectedBytes: body.count))
        let counter = MallocCounter()

        let failures = FailureTally()
        // Warm-up: first-use costs (metadata, lazy globals, thread pools) are not per-request costs.
        driver.run(count: warmup, concurrency: concurrency, failures: failures)
        failures.check("warm-up")

        let allocationsBefore = counter?.count
        let stopwatch = Stopwatch()
        driver.run(count: count, concurrency: concurrency, failures: failures)
        let seconds = stopwatch.elapsedSeconds
        let cpu = stopwatch.cpuSeconds
        let switches = stopwatch.contextSwitches
        let allocationsAfter = counter?.count
        failures.check("timed run")

        var report = Report(case: "overhead", client: client)
        report["concurrency"] = .int(concurrency)
        report["requests"] = .int(count)
        report["seconds"] = .double(seconds)
        report["ns_per_request"] = .double(seconds / Double(count) * 1e9)
        report["cpu_ns_per_request"] = .double(cpu / Double(count) * 1e9)
        if let allocationsBefore, let allocationsAfter {
            report["allocations_per_request"] = .double(Double(allocationsAfter - allocationsBefore) / Double(count))
        }
        report["context_switches_per_request"] = .double(Double(switches) / Double(count))
        report["maxrss_bytes"] = .int(Measurement.peakRSSBytes())
        report.emit()
    }

    /// The reference row: the cheapest hand-off there is, one `DispatchQueue.async` to another
    /// thread and a semaphore back, with nothing else. A sequential request cannot cost less than
    /// this times the number of thread hops it makes; on a virtual machine, waking a sleeping
    /// thread is the expensive part.
    private static func runRoundTrips(count: Int, warmup: Int) {
        let queue = DispatchQueue(label: "bench.round-trip")
        let done = DispatchSemaphore(value: 0)
        func trips(_ count: Int) {
            for _ in 0..<count {
                queue.async { done.signal() }
                done.wait()
            }
        }
        trips(warmup)
        let stopwatch = Stopwatch()
        trips(count)
        let seconds = stopwatch.elapsedSeconds
        let cpu = stopwatch.cpuSeconds
        let switches = stopwatch.contextSwitches

        var report = Report(case: "overhead", client: "round-trip")
        report["concurrency"] = .int(1)
        report["requests"] = .int(count)
        report["seconds"] = .double(seconds)
        report["ns_per_request"] = .double(seconds / Double(count) * 1e9)
        report["cpu_ns_per_request"] = .double(cpu / Double(count) * 1e9)
        report["context_switches_per_request"] = .double(Double(switches) / Double(count))
        report["maxrss_bytes"] = .int(Measurement.peakRSSBytes())
        report.emit()
    }
}
