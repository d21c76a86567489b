import Courier
import Foundation

/// What `courier demo` was asked: which engine, whether to show progress.
struct DemoPlan: Sendable {
    let settings: Settings
    /// `COURIER_DEMO_CORRUPT=1` in the environment: the server flips a byte of the resumed part,
    /// so that the checksum step fails. For the tests of the failure path; not in `--help`.
    let corruptsResumes: Bool

    init(_ options: Options, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Failure) {
        guard options.urls.isEmpty else {
            throw .usage("demo takes no URL: it starts its own server on 127.0.0.1")
        }
        settings = try Settings(options)
        corruptsResumes = environment["COURIER_DEMO_CORRUPT"] == "1"
    }
}

/// `courier demo`: Courier's main job, shown on any machine, online or not. A loopback HTTP
/// server inside the process (``DemoServer``) answers five steps, each through the library's
/// public API:
///
/// 1. one `GET`, printed as `courier -i` prints it;
/// 2. a 100 MB download to a temporary file, with the progress bar;
/// 3. cancelled half-way, the partial file kept;
/// 4. resumed to the end with a `Range` request, its checksum compared with the server's;
/// 5. one small request through the blocking, callback and async conventions, each timed.
///
/// Whatever happens, the server is stopped and the temporary folder removed before the end; a
/// failed step ends the demo with exit 1 and a message naming the step.
struct DemoCommand {
    let plan: DemoPlan
    let console: Console

    func run() -> ExitCode {
        let started = DispatchTime.now().uptimeNanoseconds
        if plan.settings.engine.resolved == .urlSession { DemoProxies.clearEnvironment() }
        let server: DemoServer
        do {
            server = try DemoServer(corruptsResumes: plan.corruptsResumes)
        } catch {
            console.message("demo: the loopback server could not start: \(error)")
            return .failure
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        // Never through a proxy: the server is inside this process (DemoProxies).
        let network = Network(configuration: DemoProxies.configuration(), callbackQueue: DispatchQueue(label: "courier.demo.callbacks"),
                              engine: plan.settings.networkEngine)
        // A step that fails says so: nothing is retried behind the demo's back.
        network.retryPolicy = .none
        let trace = DemoTrace()
        network.observers = [trace]
        Interrupts.shared.onInterrupt { network.close() }

        var failure: Failure?
        do throws(Failure) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw Failure(.writeError, "demo: cannot create a temporary folder: \(Failure.describe(error))")
            }
            let steps = DemoSteps(network: network, server: server, trace: trace, folder: folder, console: console,
                                  progress: progressStyle)
            try console.writeOut(Data(introduction(server: server, network: network).utf8))
            try steps.get()
            try steps.download()
            try steps.resume()
            try steps.conventions()
        } catch {
            failure = error
        }

        // Clean up whatever happened, then say so.
        network.close()
        let (connections, requests) = server.counts
        let stopped = server.stop()
        try? FileManager.default.removeItem(at: folder)
        let removed = !FileManager.default.fileExists(atPath: folder.path)
        if Interrupts.shared.isInterrupted {
            console.message("demo interrupted; the temporary folder is removed")
            return .interrupted
        }
        if let failure {
            console.message(failure.message)
            return failure.exitCode
        }
        guard stopped, removed else {
            console.message("demo: " + (stopped ? "\(folder.path) could not be removed" : "the loopback server did not stop"))
            return .failure
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let summary = "Demo complete in \(String(format: "%.1f", seconds)) s: \(requests) requests over \(connections) "
            + "connections (kept alive between requests). Server stopped, temporary folder removed.\n"
            + "Next: courier --help and Docs/CommandLine.md for the tool, README.md for the library.\n"
        do throws(Failure) {
            try console.writeOut(Data(summary.utf8))
        } catch {
            console.message(error.message)
            return error.exitCode
        }
        return .ok
    }

    private func introduction(server: DemoServer, network: Network) -> String {
        // `libcurl/7.88.1`, without the list of the libraries libcurl was built with.
        let curl = Network.Engine.curlVersion?.split(separator: " ").first.map(String.init) ?? "libcurl"
        let engine = network.engine == .curl ? "the curl engine (\(curl))" : "the URLSession engine"
        return """
            courier demo: the Courier library at work against an HTTP server of its own, http://127.0.0.1:\(server.port),
            inside this process: nothing leaves the machine. Requests go through \(engine).


            """
    }

    /// Bars on a terminal, plain lines elsewhere (a log shows the download went on), none with `-s`.
    private var progressStyle: ProgressStyle {
        if plan.settings.silent, !plan.settings.progressRequested { return .none }
        return console.stderrIsTerminal ? .bars(transient: false, delay: 0) : .lines
    }
}
