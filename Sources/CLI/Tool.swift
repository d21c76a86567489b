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

    /// Runs `arguments`. A request command reads the `.curlrc` first, as curl 7.88 does, unless
    /// `-q` comes first (see ``ConfigFile``).
    static func run(_ arguments: [String], console: Console = .shared,
                    environment: [String: String] = ProcessInfo.processInfo.environment,
                    standardInput: StandardInput = StandardInput()) -> ExitCode {
        if arguments.first == "ws" {
            // A WebSocket client with options of its own (WebSocketCommand), no curl options.
            do throws(Failure) {
                return try WebSocketCommand(Array(arguments.dropFirst()), console: console).run()
            } catch {
                console.message(error.message)
                if error.exitCode == .usage { console.writeError(Data((Usage.short + "\n").utf8)) }
                return error.exitCode
            }
        }
        // `--next`: every part is read and checked before the first one runs, as curl reads
        // the whole line first; then they run in turn, and the last part's status is the
        // command's (curl's, which goes on after a failed transfer too).
        var invocations: [Invocation] = []
        var silenced = false
        do throws(Failure) {
            var parts: [Options] = []
            for (index, part) in NextGroups.split(arguments).enumerated() {
                var (options, warnings) = try ArgumentParser.parse(part, standardInput: standardInput.forConfiguration)
                if index == 0, case .request = options.command, !ConfigFile.isDisabled(by: arguments),
                   let curlrc = ConfigFile.defaultFile(environment: environment) {
                    (options, warnings) = try ArgumentParser.parse(part, defaults: curlrc, standardInput: standardInput.forConfiguration)
                }
                if !options.silent { warnings.forEach(console.message) }
                parts.append(options)
            }
            if parts.count > 1 { NextGroups.carryGlobals(into: &parts) }
            for options in parts {
                // What curl finds wrong once the line is read (a file to send, a URL's scheme) is a
                // transfer's error, which -s silences; a usage error is always said.
                silenced = options.silent && !options.showError
                invocations.append(try Invocation(options, standardInput: standardInput.forBody))
            }
        } catch {
            if !silenced || error.exitCode == .usage || error.isShownWhenSilent { console.message(error.message) }
            if error.exitCode == .usage { console.writeError(Data((Usage.short + "\n").utf8)) }
            return error.exitCode
        }
        var status = ExitCode.ok
        for invocation in invocations { status = execute(invocation, console: console) }
        return status
    }

    /// Runs one checked command line (one part of a `--next` line).
    private static func execute(_ invocation: Invocation, console: Console) -> ExitCode {
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
