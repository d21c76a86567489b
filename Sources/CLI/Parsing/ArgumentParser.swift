import Foundation

/// Turns the argument list into ``Options``.
///
/// The conventions are curl's and getopt's: options and positional arguments in any order;
/// `--name value` or `--name=value`; `-o value` or `-ovalue`; flags grouped (`-si`); `--` ends
/// the options. The first positional argument is the command if it names one. `-K FILE` reads
/// the options of a config file in its place (see ``ConfigFile``).
struct ArgumentParser {
    /// Config files may name other config files; this many deep is surely a loop.
    static let maximumConfigDepth = 10

    /// Reads the bytes of stdin for `-K -`, at most once however often the line is parsed.
    let standardInput: () -> Data
    private var options = Options()
    /// Whether a positional argument has been seen: only the first can name the command.
    private var sawPositional = false
    /// Warnings about config files, for the caller to print (unless `-s`).
    private(set) var warnings: [String] = []

    init(standardInput: @escaping () -> Data) {
        self.standardInput = standardInput
    }

    /// Parses `arguments`, after the config file `defaults` (the `.curlrc`) when there is one.
    static func parse(_ arguments: [String], defaults: URL? = nil,
                      standardInput: @escaping () -> Data = { Data() }) throws(Failure) -> (Options, warnings: [String]) {
        var parser = ArgumentParser(standardInput: standardInput)
        if let defaults { try parser.readConfig(defaults.path, depth: 1) }
        try parser.parseArguments(arguments[...])
        return (parser.options, parser.warnings)
    }

    /// Parses `arguments` with no config file; what most tests need.
    static func parse(_ arguments: [String]) throws(Failure) -> Options {
        try parse(arguments, defaults: nil).0
    }

    private mutating func parseArguments(_ arguments: ArraySlice<String>) throws(Failure) {
        var remaining = arguments
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                addPositional(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                try parseLong(argument, remaining: &remaining)
            } else {
                try parseShortCluster(argument, remaining: &remaining)
            }
        }
    }

    /// A URL, in order with those of `--url`; the first positional argument may be the command.
    private mutating func addPositional(_ argument: String) {
        defer { sawPositional = true }
        if !sawPositional, let command = Command(name: argument) {
            options.command = command
            options.commandIsExplicit = true
            return
        }
        options.urls.append(argument)
    }

    private mutating func parseLong(_ argument: String, remaining: inout ArraySlice<String>) throws(Failure) {
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
            if let inlineValue { value = inlineValue } else { value = try Self.nextValue(for: spelling, from: &remaining) }
            try apply(spec, value, spelling, depth: 1)
        } else {
            guard inlineValue == nil else { throw .usage("\(spelling) takes no value") }
            try apply(spec, "", spelling, depth: 1)
        }
    }

    /// `-si`, `-ofile`, `-H 'A: b'`: flags until one that takes a value, which takes the rest
    /// of the word, or the next argument when nothing is left.
    private mutating func parseShortCluster(_ argument: String, remaining: inout ArraySlice<String>) throws(Failure) {
        var letters = argument.dropFirst()
        while let letter = letters.popFirst() {
            let spelling = "-" + String(letter)
            guard let spec = OptionTable.byShortName[letter] else {
                throw .usage("unknown option \(spelling)" + (argument.count > 2 ? " (in \(argument))" : ""))
            }
            guard spec.takesValue else {
                try apply(spec, "", spelling, depth: 1)
                continue
            }
            let value = letters.isEmpty ? try Self.nextValue(for: spelling, from: &remaining) : String(letters)
            try apply(spec, value, spelling, depth: 1)
            return
        }
    }

    private mutating func apply(_ spec: OptionSpec, _ value: String, _ spelling: String, depth: Int) throws(Failure) {
        if spec.long == "config" {
            try readConfig(value, depth: depth)
            return
        }
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

    // MARK: - Config files

    /// Applies the options of the config file at `path` (`-` is stdin), as curl does: a file that
    /// cannot be read is an error (exit 26); a line it cannot use is a warning.
    private mutating func readConfig(_ path: String, depth: Int) throws(Failure) {
        guard depth <= Self.maximumConfigDepth else {
            throw .usage("-K: config files include each other more than \(Self.maximumConfigDepth) deep")
        }
        let text: String
        let name = path == "-" ? "<stdin>" : path
        if path == "-" {
            text = String(decoding: standardInput(), as: UTF8.self)
        } else {
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw Failure(.readError, "cannot read the config file \(path): \(Failure.describe(error))")
            }
        }
        for item in ConfigFile.items(of: text) {
            try applyConfigItem(item, file: name, depth: depth)
        }
    }

    private mutating func applyConfigItem(_ item: ConfigFile.Item, file: String, depth: Int) throws(Failure) {
        let place = "\(file):\(item.line)"
        let option = item.option
        var specs: [(OptionSpec, String)] = []
        var value = item.value
        if option.hasPrefix("-"), !option.hasPrefix("--") {
            // A short option or a cluster of them (-sS); a value inside the cluster (-ofile) wins.
            var letters = option.dropFirst()
            while let letter = letters.popFirst() {
                guard let spec = OptionTable.byShortName[letter] else {
                    warnings.append("\(place): warning: '-\(letter)' is unknown")
                    return
                }
                if spec.takesValue, !letters.isEmpty {
                    value = String(letters)
                    letters = ""
                }
                specs.append((spec, "-" + String(letter)))
            }
        } else {
            let name = option.hasPrefix("--") ? String(option.dropFirst(2)) : option
            guard let spec = OptionTable.byLongName[name] else {
                warnings.append("\(place): warning: '\(option)' is unknown")
                return
            }
            specs.append((spec, "--" + name))
        }
        for (spec, spelling) in specs {
            if spec.takesValue {
                guard let given = value else {
                    warnings.append("\(place): warning: '\(option)' requires a value")
                    return
                }
                try apply(spec, given, spelling, depth: depth + 1)
                value = nil
            } else {
                try apply(spec, "", spelling, depth: depth + 1)
            }
        }
        if let value, !value.isEmpty {
            warnings.append("\(place): warning: '\(option)' takes no value; '\(value)' ignored")
        }
    }
}
