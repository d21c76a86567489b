import Courier
import Foundation

/// `courier ws URL`: a WebSocket client for scripts. Each line of stdin is sent as a text
/// message; each message received is written to stdout, a text one as a line, a binary one as
/// its bytes. With `--echo`, every message received is sent back unchanged (a binary one as
/// binary) and stdin is not read: an echo client for conformance runs. At the end of stdin the
/// closing handshake starts once no message has come for `--linger` seconds (1 by default), so
/// that the answers to the last lines are printed. The exit status says how it ended
/// (``exitCode(for:)``).
///
/// Its own small parser: the request options of the other commands have no meaning here.
struct WebSocketCommand {
    let url: URL
    let echo: Bool
    let headers: [(name: String, value: String)]
    let subprotocols: [String]
    let tls: TLSOptions
    let linger: TimeInterval
    let console: Console

    /// Reads `arguments` (those after `ws`).
    init(_ arguments: [String], console: Console) throws(Failure) {
        var url: URL?
        var echo = false
        var headers: [(name: String, value: String)] = []
        var subprotocols: [String] = []
        var tls = TLSOptions()
        var linger: TimeInterval = 1
        var index = 0
        func value(_ option: String) throws(Failure) -> String {
            index += 1
            guard index < arguments.count else { throw Failure(.usage, "\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--echo": echo = true
            case "-H", "--header":
                let line = try value(argument)
                guard let colon = line.firstIndex(of: ":") else { throw Failure(.usage, "a header needs a colon: \(line)") }
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            case "--protocol": subprotocols.append(try value(argument))
            case "--cacert": tls.certificateAuthorities = URL(fileURLWithPath: try value(argument))
            case "-k", "--insecure": tls.allowsInsecureConnections = true
            case "--linger":
                let text = try value(argument)
                guard let seconds = TimeInterval(text), seconds >= 0, seconds.isFinite else { throw Failure(.usage, "--linger needs seconds: \(text)") }
                linger = seconds
            default:
                guard !argument.hasPrefix("-") else { throw Failure(.usage, "ws: unknown option \(argument)") }
                guard url == nil else { throw Failure(.usage, "ws takes one URL") }
                guard let parsed = URL(string: argument), ["ws", "wss"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                    throw Failure(.invalidURL, "invalid WebSocket URL (ws:// or wss://): \(argument)")
                }
                url = parsed
            }
            index += 1
        }
        guard let url else { throw Failure(.usage, "ws needs a URL (ws:// or wss://)") }
        self.url = url
        self.echo = echo
        self.headers = headers
        self.subprotocols = subprotocols
        self.tls = tls
        self.linger = linger
        self.console = console
    }

    func run() -> ExitCode {
        let engine: Network.Engine = tls.isDefault ? .automatic : .curl
        let network = Network(callbackQueue: DispatchQueue(label: "courier.ws.callbacks"), engine: engine, tls: tls)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<WebSocketEnd?>(nil)
        let writeFailed = Locked(false)
        let lastMessage = Locked(Date())
        let echo = self.echo
        let console = self.console
        let socket = network.webSocket(url, options: WebSocketOptions(subprotocols: subprotocols, headers: headers),
                                       onMessage: { message, socket in
                                           lastMessage.withLock { $0 = Date() }
                                           let bytes: Data
                                           switch message {
                                           case let .text(text): bytes = Data((text + "\n").utf8)
                                           case let .binary(data): bytes = data
                                           }
                                           do { try console.writeOut(bytes) } catch {
                                               writeFailed.withLock { $0 = true }
                                               socket.cancel()
                                           }
                                           if echo { socket.send(message) { _ in } }
                                       },
                                       onEnd: { end in
                                           outcome.withLock { $0 = end }
                                           ended.signal()
                                       })
        Interrupts.shared.onInterrupt { socket.cancel() }
        if !echo {
            // Lines of stdin, each a text message; at its end, the closing handshake.
            while let line = readLine(strippingNewline: true) {
                do { try socket.sendSynchronously(.text(line)) } catch { break }
            }
            // The answers to the last lines first: until no message has come for `linger`.
            lastMessage.withLock { $0 = max($0, Date()) }
            while true {
                let quietUntil = lastMessage.withLock { $0 }.addingTimeInterval(linger)
                let wait = quietUntil.timeIntervalSinceNow
                guard wait > 0, ended.wait(timeout: .now() + wait) == .timedOut else { break }
            }
            if outcome.withLock({ $0 }) != nil { ended.signal() }   // the wait above took the end's signal
            socket.close()
        }
        ended.wait()
        if writeFailed.withLock({ $0 }) { return .writeError }
        guard let end = outcome.withLock({ $0 }) else { return .failure }
        let code = Self.exitCode(for: end, interrupted: Interrupts.shared.isInterrupted)
        if code != .ok, case let .failed(error) = end { console.message(String(describing: error)) }
        return code
    }

    /// 0 for a completed closing handshake (whoever started it); otherwise curl's code for the
    /// same kind of failure: the connection's own (6, 7, 35, 60, …), 22 for a refused upgrade,
    /// 8 for an invalid upgrade or a peer that broke the protocol, 63 for a message over the
    /// limit, 28 for a timeout, 56 for a lost connection, 130 when interrupted.
    static func exitCode(for end: WebSocketEnd, interrupted: Bool = false) -> ExitCode {
        guard case let .failed(error) = end else { return .ok }
        switch error {
        case let .connectionFailed(networkError): return Failure(networkError, url: nil, timeout: nil).exitCode
        case .handshakeRejected: return .httpError
        case .invalidHandshake, .protocolViolation, .invalidUTF8: return .badResponse
        case .messageTooLarge: return .tooLarge
        case .timedOut, .pongTimeout, .sendStalled: return .timedOut
        case .connectionLost: return .networkFailure
        case .cancelled: return interrupted ? .interrupted : .failure
        case .unavailable: return .libcurlRefusedOption
        case .closed, .invalidUse, .sendBufferFull: return .failure
        }
    }
}

private extension TLSOptions {
    var isDefault: Bool { self == TLSOptions() }
}
