/// The options that say where a response goes and what is shown of it.
extension OptionTable {
    static let outputOptions: [OptionSpec] = [
        .value("output", "o") { options, value, _ in options.outputs.append(.file(value)) },
        .flag("remote-name", "O") { $0.outputs.append(.remoteName) },
        .flag("remote-name-all") { $0.remoteNameAll = true },
        // curl's --no-remote-name takes the next URL's output slot as -O would, for stdout: it
        // keeps that URL out of --remote-name-all.
        .flag("no-remote-name") { $0.outputs.append(.file("-")) },
        .flag("remote-header-name", "J") { $0.remoteHeaderName = true },
        .flag("create-dirs") { $0.createDirectories = true },
        .flag("no-clobber") { $0.noClobber = true },
        .flag("clobber") { $0.noClobber = false },
        .value("output-dir") { options, value, _ in options.outputDirectory = value },
        .value("dir") { options, value, spelling in try setOnce(&options.directory, value, spelling) },
        .flag("include", "i") { $0.includeHeaders = true },
        .flag("no-include") { $0.includeHeaders = false },
        .value("dump-header", "D") { options, value, _ in options.dumpHeader = value },
        .value("write-out", "w") { options, value, _ in options.writeOut = value },   // the last wins, as in curl
        .flag("json-output") { $0.jsonOutput = true },
        .flag("no-buffer", "N") { $0.noBuffer = true },
        .flag("no-resume") { $0.noResume = true },
        .flag("remove-on-error") { $0.removeOnError = true },
        .value("etag-save") { options, value, _ in options.etagSave = value },
        .flag("silent", "s") { $0.silent = true },
        .flag("show-error", "S") { $0.showError = true },
        .flag("verbose", "v") { $0.verbose = true },
        // The last of --trace and --trace-ascii wins, as in curl.
        .value("trace") { options, value, _ in options.trace = (value, .hex) },
        .value("trace-ascii") { options, value, _ in options.trace = (value, .ascii) },
        .flag("trace-time") { $0.traceTime = true },
        .flag("progress") { $0.progress = true },
        .flag("progress-bar", "#") { $0.progress = true },
        .flag("no-progress-meter") { $0.noProgressMeter = true },
    ]
}
