import Courier
import Foundation

/// The command line of one benchmark process: a subcommand followed by `--name value` options.
///
/// Deliberately tiny (no package dependencies): every option is a string looked up by name, and
/// a missing or malformed required option ends the process with a usage message.
struct Arguments {
    let subcommand: String
    private let options: [String: String]

    init(_ arguments: [String]) {
        subcommand = arguments.first ?? "help"
        var options: [String: String] = [:]
        var index = 1
        while index < arguments.count {
            let name = arguments[index]
            guard name.hasPrefix("--") else { Self.fail("unexpected argument '\(name)'") }
            let key = String(name.dropFirst(2))
            // A flag with no value (the next word is another option, or there is none) reads as "true".
            if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                options[key] = arguments[index + 1]
                index += 2
            } else {
                options[key] = "true"
                index += 1
            }
        }
        self.options = options
    }

    func string(_ name: String) -> String {
        guard let value = options[name] else { Self.fail("missing --\(name)") }
        return value
    }

    func string(_ name: String, default value: String) -> String {
        options[name] ?? value
    }

    func int(_ name: String, default value: Int? = nil) -> Int {
        guard let text = options[name] else {
            guard let value else { Self.fail("missing --\(name)") }
            return value
        }
        guard let number = Int(text), number >= 0 else { Self.fail("--\(name) needs a whole number, got '\(text)'") }
        return number
    }

    func url(_ name: String) -> URL {
        let text = string(name)
        guard let url = URL(string: text), url.scheme != nil else { Self.fail("--\(name) needs a URL, got '\(text)'") }
        return url
    }

    func optionalURL(_ name: String) -> URL? {
        options[name] == nil ? nil : url(name)
    }

    func fileURL(_ name: String) -> URL {
        URL(fileURLWithPath: string(name))
    }

    /// The value of `--name`, which must be one of `choices`.
    func choice(_ name: String, _ choices: [String]) -> String {
        let value = string(name)
        guard choices.contains(value) else { Self.fail("--\(name) must be one of \(choices.joined(separator: "|")), got '\(value)'") }
        return value
    }

    /// The engine of the Courier clients: `--engine urlsession` (the default, so that the
    /// URLSession rows keep their meaning) or `--engine curl`. A curl engine that cannot be
    /// loaded is a failure here, not a silent fallback.
    var engine: Network.Engine {
        guard options["engine"] != nil else { return .urlSession }
        switch choice("engine", ["urlsession", "curl"]) {
        case "curl":
            if let reason = Network.Engine.curlUnavailableReason { Self.fail("the curl engine is unavailable: \(reason)") }
            return .curl
        default:
            return .urlSession
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Benchmarks: \(message)\n\n\(usage)\n".utf8))
        exit(64)  // EX_USAGE
    }

    static let usage = """
        usage: Benchmarks <case> [options]; each run prints one JSON line.
          small    --client urlsession|urlsession-delegate|callback|blocking|async|bare-multi|bare-multi-new-handles|bare-easy --url URL
                   [--count 5000] [--concurrency 1] [--expect-bytes 1024] [--engine urlsession|curl]
                   [--http 1.1|2 [--cacert FILE]] [--connections-per-host N]
          download --client urlsession|urlsession-data|courier --url URL --to PATH [--warmup-url URL] [--expect-bytes N]
                   [--engine urlsession|curl] [--http 1.1|2 [--cacert FILE]]
          cancel   --client urlsession|courier|courier-download --url URL [--at-bytes 104857600]
                   [--to PATH (courier-download)] [--warmup-url URL] [--engine urlsession|curl]
          overhead --client callback|blocking|async|round-trip [--count 100000] [--concurrency 1] [--body-bytes 1024]
          engine   (no options: the curl engine's libcurl and whether it reuses easy handles)
        """
}
