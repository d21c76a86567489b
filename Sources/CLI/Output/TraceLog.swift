import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--trace FILE`, `--trace-ascii FILE` and `--trace-time`: the exchange, written to a file in
/// curl's trace format — `=> Send header, 78 bytes (0x4e)`, `<= Recv header, …`,
/// `<= Recv data, …`, `== Info: …` — each block followed by its bytes, 16 a row in hex and
/// text for `--trace`, 64 a row as text for `--trace-ascii` (a CR LF ends a row there).
///
/// What courier writes is what the command line can see of the exchange, not libcurl's own
/// debug stream: the request head as handed to the engine (the engine adds a field or two of
/// its own on the wire, as ``VerboseLog`` says), each response head one field per block, and
/// the size of a body held in memory. The file is opened (and emptied) by the first thing
/// written, as curl does; `-` is stdout, `%` stderr.
struct TraceLog: NetworkObserver {
    let file: TraceFile

    func willSend(_ request: URLRequest, context: RequestContext) {
        guard let url = request.url else { return }
        let method = request.httpMethod ?? context.method.rawValue
        var head = "\(method) \(Self.target(of: url)) HTTP/1.1\r\n"
        if let host = url.host { head += "Host: \(host.contains(":") ? "[\(host)]" : host)\(url.port.map { ":\($0)" } ?? "")\r\n" }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            head += "\(name): \(value)\r\n"
        }
        file.info("Sending \(method) request to \(url.absoluteString)")
        file.block("=> Send header", Data((head + "\r\n").utf8))
        if let body = request.httpBody, !body.isEmpty { file.block("=> Send data", body) }
    }

    func didRedirect(_ response: HTTPResponse, to request: URLRequest, context: RequestContext) {
        received(response)
    }

    func didReceive(_ response: HTTPResponse, context: RequestContext) {
        received(response)
        if !response.body.isEmpty { file.block("<= Recv data", response.body) }
    }

    func didFail(_ error: NetworkError, context: RequestContext) {
        file.info(error.description)
    }

    /// A response head, one block per line, as libcurl reports it.
    private func received(_ response: HTTPResponse) {
        file.block("<= Recv header", Data((HeadText.statusLine(of: response.statusCode, version: response.httpVersion) + "\r\n").utf8))
        for field in response.headers.fields {
            file.block("<= Recv header", Data("\(field.name): \(field.value)\r\n".utf8))
        }
        file.block("<= Recv header", Data("\r\n".utf8))
    }

    /// The request target: the path (`/` when empty) and the query.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? url.path
        return (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}

/// The file `--trace`/`--trace-ascii` names, shared by every transfer of the command (curl
/// writes one file for all of them), opened on first use.
final class TraceFile: Sendable {
    /// `--trace` (hex and text) or `--trace-ascii` (text only).
    enum Style: Sendable, Equatable {
        case hex
        case ascii
    }

    let path: String
    let style: Style
    /// `--trace-time`: each block starts with the local time, `HH:MM:SS.uuuuuu `.
    let timed: Bool
    let console: Console
    private let handle = Locked<FileHandle?>(nil)

    init(path: String, style: Style, timed: Bool, console: Console) {
        self.path = path
        self.style = style
        self.timed = timed
        self.console = console
    }

    /// `== Info: text`.
    func info(_ text: String) {
        write(Data("\(stamp)== Info: \(text)\n".utf8))
    }

    /// `text, N bytes (0xN)`, then the bytes in rows, as curl's tool dumps them.
    func block(_ text: String, _ data: Data) {
        let width = style == .ascii ? 0x40 : 0x10
        let bytes = [UInt8](data)
        var out = "\(stamp)\(text), \(bytes.count) bytes (0x\(String(bytes.count, radix: 16)))\n"
        var start = 0
        while start < bytes.count {
            out += String(format: "%04x: ", start)
            let end = min(start + width, bytes.count)
            if style == .hex {
                for index in start..<(start + width) {
                    out += index < bytes.count ? String(format: "%02x ", bytes[index]) : "   "
                }
            }
            var index = start
            var next = end
            while index < end {
                // --trace-ascii: a CR LF ends the row, and the next one starts after it.
                if style == .ascii, index + 1 < bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A {
                    next = index + 2
                    break
                }
                let byte = bytes[index]
                out.unicodeScalars.append(byte >= 0x20 && byte < 0x7F ? Unicode.Scalar(byte) : ".")
                index += 1
                if style == .ascii, index + 1 < bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A {
                    next = index + 2
                    break
                }
            }
            out += "\n"
            start = next
        }
        write(Data(out.utf8))
    }

    private var stamp: String {
        guard timed else { return "" }
        var now = timeval()
        gettimeofday(&now, nil)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%02d:%02d:%02d.%06ld ", parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_usec))
    }

    private func write(_ data: Data) {
        switch path {
        case "-": try? console.writeOut(data)
        case "%": console.writeError(data)
        default:
            handle.withLock { handle in
                if handle == nil {
                    // Emptied, as curl's fopen(…, "w") does; a file that cannot be made is no error.
                    guard FileManager.default.createFile(atPath: path, contents: nil) else { return }
                    handle = FileHandle(forWritingAtPath: path)
                }
                handle?.write(data)
            }
        }
    }
}
