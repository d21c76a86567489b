import Courier
import Foundation

/// What `courier` will do, checked: every option fits the command, every value is usable.
enum Invocation: Sendable {
    case help
    case version
    case request(RequestPlan)
    case download(DownloadPlan)
    case demo(DemoPlan)

    /// Validates `options`. Usage mistakes are ``ExitCode/usage``; an unreadable file to send is
    /// ``ExitCode/readError`` and a malformed URL ``ExitCode/invalidURL``, as curl reports them.
    init(_ options: Options, standardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) throws(Failure) {
        if options.help {
            self = .help
            return
        }
        if options.version {
            self = .version
            return
        }
        var options = options
        options.headers = try ImpliedHeaders.lines(options) + options.headers
        switch options.command {
        case let .request(method):
            self = .request(try RequestPlan(options, namedMethod: options.commandIsExplicit ? method : nil,
                                            standardInput: standardInput))
        case .download:
            try Self.refuseRequestOnlyOptions(options)
            self = .download(try DownloadPlan(options))
        case .demo:
            self = .demo(try DemoPlan(options))
        }
    }

    /// Options that shape a request and its output: `download` saves many files in parallel,
    /// by its own rules (names from the URL, `.partial` files), where a method, a script's
    /// report, a verbose trace or curl's output naming has no place.
    private static func refuseRequestOnlyOptions(_ options: Options) throws(Failure) {
        let given = [
            (options.method != nil, "-X"), (options.dataInQuery, "-G"), (options.range != nil, "-r"),
            (options.writeOut != nil, "-w"), (options.verbose, "-v"), (options.jsonOutput, "--json-output"),
            (!options.cookies.isEmpty, "-b"), (options.cookieJar != nil, "-c"), (options.maxFilesize != nil, "--max-filesize"),
            (options.outputs.contains(.remoteName) || options.remoteNameAll, "-O"), (options.remoteHeaderName, "-J"),
            (options.continueAt != nil, "-C"), (options.dumpHeader != nil, "-D"), (options.headOnly, "-I"),
            (options.etagSave != nil || options.etagCompare != nil, "--etag-save/--etag-compare"), (options.parallel, "-Z"),
            (options.failWithBody, "--fail-with-body"), (!options.urlQueries.isEmpty, "--url-query"),
            (options.outputDirectory != nil, "--output-dir"), (options.removeOnError, "--remove-on-error"),
        ]
        for (isGiven, name) in given where isGiven {
            throw .usage("\(name) is for single requests; it cannot be used with download")
        }
    }
}
