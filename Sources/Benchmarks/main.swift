import Foundation

// One measurement per process (see Measurement): scripts/bench starts this executable once per
// case and run, and reads the JSON line it prints.
let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
switch arguments.subcommand {
case "small": SmallRequestsCase.run(arguments)
case "download": DownloadCase.run(arguments)
case "cancel": CancelCase.run(arguments)
case "overhead": OverheadCase.run(arguments)
case "engine": EngineCase.run(arguments)
case "help", "--help", "-h": print(Arguments.usage)
default: Arguments.fail("unknown case '\(arguments.subcommand)'")
}
