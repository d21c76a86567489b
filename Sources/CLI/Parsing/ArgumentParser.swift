/// Turns the argument list into ``Options``.
///
/// The conventions are curl's and getopt's: options and positional arguments in any order;
/// `--name value` or `--name=value`; `-o value` or `-ovalue`; flags grouped (`-si`); `--` ends
/// the options. The first positional argument is the command if it names one.
enum ArgumentParser {
    static func parse(_ arguments: [String]) throws(Failure) -> Options {
        var options = Options()
        var positionals: [String] = []
        var remaining = arguments[...]
        var optionsEnded = false

        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                try parseLong(argument, remaining: &remaining, into: &options)
            } else {
                try parseShortCluster(argument, remaining: &remaining, into: &options)
            }
        }

        if let first = positionals.first, let command = Command(name: first) {
            options.command = command
            options.commandIsExplicit = true
            positionals.removeFirst()
        }
        options.urls = positionals
        return options
    }

    private static func parseLong(_ argument: String, remaining: inout ArraySlice<String>,
                                  into options: inout Options) throws(Failure) {
        let text = argument.dropFirst(2)
        let name: Substring
        var inlineValue: String?
        if let equals = text.firstIndex(of: "=") {
            name = text[..<equals]
            inlineValue = String(text[text.index(after: equals)...])
        } else {
            name = text
        }
        let spelling = "--" + name
        guard let spec = OptionTable.byLongName[String(name)] else {
            throw .usage("unknown option \(spelling)")
        }
        if spec.takesValue {
            // Not `??`: its autoclosure would erase the typed error.
            let value: String
            if let inlineValue { value = inlineValue } else { value = try nextValue(for: spelling, from: &remaining) }
            try apply(spec, &options, value, spelling)
        } else {
            guard inlineValue == nil else { throw .usage("\(spelling) takes no value") }
            try apply(spec, &options, "", spelling)
        }
    }

    /// `-si`, `-ofile`, `-H 'A: b'`: flags until one that takes a value, which takes the rest
    /// of the word, or the next argument when nothing is left.
    private static func parseShortCluster(_ argument: String, remaining: inout ArraySlice<String>,
                                          into options: inout Options) throws(Failure) {
        var letters = argument.dropFirst()
        while let letter = letters.popFirst() {
            let spelling = "-" + String(letter)
            guard let spec = OptionTable.byShortName[letter] else {
                throw .usage("unknown option \(spelling)" + (argument.count > 2 ? " (in \(argument))" : ""))
            }
            guard spec.takesValue else {
                try apply(spec, &options, "", spelling)
                continue
            }
            let value = letters.isEmpty ? try nextValue(for: spelling, from: &remaining) : String(letters)
            try apply(spec, &options, value, spelling)
            return
        }
    }

    private static func apply(_ spec: OptionSpec, _ options: inout Options, _ value: String,
                              _ spelling: String) throws(Failure) {
        do {
            try spec.apply(&options, value, spelling)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .usage("\(spelling): \(error)")
        }
    }

    private static func nextValue(for spelling: String, from remaining: inout ArraySlice<String>) throws(Failure) -> String {
        guard let value = remaining.popFirst() else { throw .usage("\(spelling) needs a value") }
        return value
    }
}
