import Foundation

/// The `courier` command: reads the arguments, runs the command, returns the exit status.
enum Tool {
    /// Runs with this process's own arguments, read as bytes (see ``RawArguments``).
    static func runWithProcessArguments(console: Console = .shared) -> ExitCode {
        do throws(Failure) {
            return run(try RawArguments.decode(RawArguments.ofProcess), console: console)
        } catch {
            console.message(error.message)
            console.writeError(Data((Usage.short + "\n").utf8))
            return error.exitCode
        }
    }

    static func run(_ arguments: [String], console: Console = .shared) -> ExitCode {
        let invocation: Invocation
        do throws(Failure) {
            invocation = try Invocation(try ArgumentParser.parse(arguments))
        } catch {
            console.message(error.message)
            if error.exitCode == .usage { console.writeError(Data((Usage.short + "\n").utf8)) }
            return error.exitCode
        }
        do throws(Failure) {
            switch invocation {
            case .help:
                try console.writeOut(Data((Usage.help + "\n").utf8))
            case .version:
                try console.writeOut(Data((Usage.versionText + "\n").utf8))
            case let .request(plan):
                return RequestCommand(plan: plan, console: console).run()
            case let .download(plan):
                return DownloadCommand(plan: plan, console: console).run()
            case let .demo(plan):
                return DemoCommand(plan: plan, console: console).run()
            }
        } catch {
            console.message(error.message)
            return error.exitCode
        }
        return .ok
    }
}
