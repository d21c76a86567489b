import Courier
import Foundation

/// What `courier` will do, checked: every option fits the command, every value is usable.
enum Invocation: Sendable {
    case help
    case version
    case request(RequestPlan)
    case download(DownloadPlan)

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
        switch options.command {
        case let .request(method):
            self = .request(try RequestPlan(options, namedMethod: options.commandIsExplicit ? method : nil,
                                            standardInput: standardInput))
        case .download:
            self = .download(try DownloadPlan(options))
        }
    }
}
