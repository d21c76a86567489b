import Courier
import Foundation

/// The demo's last step: one small request through each calling convention, with its time.
enum DemoConventions {
    /// One convention's run.
    struct Run {
        /// `blocking`, `callback`, `async`.
        let name: String
        /// The call, as user code writes it.
        let call: String
        /// From the call to the result in hand, waiting included.
        let seconds: Double
        let result: Result<Response<Data>, any Error>
    }

    /// The same request, once blocking, once with a callback, once with async/await, in that order.
    static func runAll(_ request: RequestWithResponse<Request<Data>>, on network: Network) -> [Run] {
        [
            timed("blocking", "network.scheduleSynchronously(request)") {
                network.scheduleSynchronously(request)
            },
            timed("callback", "network.schedule(request) { result in … }") {
                let result = Locked<Result<Response<Data>, any Error>?>(nil)
                let done = DispatchSemaphore(value: 0)
                network.schedule(request) { outcome in
                    result.withLock { $0 = outcome }
                    done.signal()
                }
                done.wait()
                return result.current ?? .failure(NetworkError.cancelled)
            },
            timed("async", "try await network.response(for: request)") {
                // The tool's own thread is no task: it waits for one, as a script's main would.
                let result = Locked<Result<Response<Data>, any Error>?>(nil)
                let done = DispatchSemaphore(value: 0)
                Task {
                    do {
                        let response = try await network.response(for: request)
                        result.withLock { $0 = .success(response) }
                    } catch {
                        result.withLock { $0 = .failure(error) }
                    }
                    done.signal()
                }
                done.wait()
                return result.current ?? .failure(NetworkError.cancelled)
            },
        ]
    }

    private static func timed(_ name: String, _ call: String, _ body: () -> Result<Response<Data>, any Error>) -> Run {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Run(name: name, call: call, seconds: seconds, result: result)
    }

    /// What the demo shows of a response: `HTTP/1.1 200 OK, 98 bytes, first byte 0.4 ms, connection
    /// reused` — the protocol and the timings from the response's metrics, where the engine
    /// reports them (URLSession on Linux knows no protocol and no connection: those are left out).
    static func summary(of response: Response<Data>) -> String {
        var text = "\(response.statusCode) \(ReasonPhrase.text(for: response.statusCode)), \(response.value.count) bytes"
        if response.response.httpVersion != .unknown { text = "\(response.response.httpVersion) " + text }
        if let metrics = response.response.metrics {
            if let firstByte = metrics.firstByte { text += ", first byte \(time(firstByte))" }
            if let reused = metrics.reusedConnection { text += reused ? ", connection reused" : ", new connection" }
        }
        return text
    }

    /// `0.8 ms`, `12 ms`, `1.25 s`.
    static func time(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        let milliseconds = seconds * 1000
        return milliseconds < 10 ? String(format: "%.1f ms", milliseconds) : String(format: "%.0f ms", milliseconds)
    }
}
