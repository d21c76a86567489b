import Courier

/// `engine`: which libcurl the curl engine loaded here, and how it uses it, as one JSON line.
///
/// Read by `scripts/bench` for the report's toolchain table. The engine's libcurl is the one
/// `dlopen("libcurl.so.4")` finds, which need not be the `curl` command's, and whether it reuses
/// easy handles (``CurlFeatures/reusesEasyHandles``) changes what each transfer costs against
/// bare-multi, which always reuses its own: the report's section 5 says so when it does not.
enum EngineCase {
    static func run(_ arguments: Arguments) {
        var report = Report(case: "engine", client: "curl")
        if let features = Network.Engine.curlFeatures {
            report["libcurl"] = .string(features.version)
            report["reuses_easy_handles"] = .bool(features.reusesEasyHandles)
            report["description"] = .string(features.description)
        } else {
            report["unavailable"] = .string(Network.Engine.curlUnavailableReason ?? "unknown")
        }
        report.emit()
    }
}
