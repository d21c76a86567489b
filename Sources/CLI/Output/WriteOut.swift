import Courier
import Foundation

/// `-w FORMAT`: what is printed once each transfer is over, after its body, also when it failed:
/// the way a script reads a status without parsing headers.
///
/// The format is curl's: `%{variable}` is replaced by its value (the variables are in
/// ``WriteOutVariables``, one line each), `%header{Name}` by a response header, `%%` is a `%`, and
/// `\n`, `\r`, `\t`, `\\` are the usual escapes. `%{stdout}` and `%{stderr}` switch where the
/// rest goes; `%{onerror}` ends the output there unless the transfer failed. `@FILE` reads the
/// format from a file (`@-` from stdin). An unknown variable prints nothing and a warning on
/// stderr, as in curl.
struct WriteOut: Sendable {
    /// Where a piece of output goes.
    enum Stream: Sendable { case stdout, stderr }

    enum Piece: Sendable, Equatable {
        case text(String)
        case variable(String)
        case header(String)
        case unknown(String)
        case toStdout
        case toStderr
        case onError
    }

    let pieces: [Piece]

    /// Reads `-w`'s argument: the format, or `@FILE` (`@-`: stdin).
    init(argument: String, standardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) throws(Failure) {
        var format = argument
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            if path == "-" {
                format = String(decoding: standardInput(), as: UTF8.self)
            } else {
                do {
                    format = try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    throw Failure(.readError, "cannot read \(path): \(Failure.describe(error))")
                }
            }
        }
        self.init(format: format)
    }

    init(format: String) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        func flush() {
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
        }
        while let character = rest.popFirst() {
            switch character {
            case "%" where rest.first == "%":
                rest.removeFirst()
                text.append("%")
            case "%" where rest.first == "{" && rest.contains("}"):
                let close = rest.firstIndex(of: "}")!
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
                flush()
                switch name {
                case "stdout": pieces.append(.toStdout)
                case "stderr": pieces.append(.toStderr)
                case "onerror": pieces.append(.onError)
                default: pieces.append(WriteOutVariables.byName[name] != nil ? .variable(name) : .unknown(name))
                }
            case "%" where rest.hasPrefix("header{") && rest.contains("}"):
                rest = rest.dropFirst("header{".count)
                let close = rest.firstIndex(of: "}")!
                flush()
                pieces.append(.header(String(rest[..<close])))
                rest = rest[rest.index(after: close)...]
            case "\\" where rest.first.map("nrt\\".contains) == true:
                switch rest.removeFirst() {
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                default: text.append("\\")
                }
            default:
                text.append(character)
            }
        }
        flush()
        self.pieces = pieces
    }

    /// The names of the unknown variables in the format, for the warnings curl prints.
    var unknownVariables: [String] {
        pieces.compactMap { if case let .unknown(name) = $0 { return name } else { return nil } }
    }

    /// The format filled in, as (stream, text) parts in order.
    func render(_ report: WriteOutReport) -> [(Stream, String)] {
        var parts: [(Stream, String)] = []
        var stream = Stream.stdout
        for piece in pieces {
            let text: String
            switch piece {
            case let .text(value): text = value
            case let .variable(name): text = WriteOutVariables.byName[name]?.value(report).plain ?? ""
            case let .header(name): text = report.response?.headers[name] ?? ""   // the first, as curl
            case .unknown: text = ""
            case .toStdout: stream = .stdout; continue
            case .toStderr: stream = .stderr; continue
            case .onError:
                if report.exitCode == .ok { return parts }
                continue
            }
            guard !text.isEmpty else { continue }
            if let last = parts.last, last.0 == stream {
                parts[parts.count - 1].1 += text
            } else {
                parts.append((stream, text))
            }
        }
        return parts
    }
}
