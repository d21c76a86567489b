import CCurl

/// permessage-deflate (RFC 7692) as the server accepted it: which side keeps its compression
/// context between messages, and the window sizes.
struct WebSocketDeflateParameters: Sendable, Equatable {
    /// The server starts each message with an empty context: our inflater is reset after each one.
    var serverNoContextTakeover = false
    /// We must start each message with an empty context: our deflater is reset after each one.
    var clientNoContextTakeover = false
    /// The server's window (8-15; we inflate with 15, which reads any smaller window too).
    var serverMaxWindowBits = 15
    /// Our window (8-15). zlib cannot deflate with 8, so then we send uncompressed (allowed).
    var clientMaxWindowBits = 15

    /// What the client offers: the extension, and that the server may limit our window.
    static let offer = "permessage-deflate; client_max_window_bits"

    /// Parses the server's `Sec-WebSocket-Extensions` answer to ``offer`` (§7): exactly one
    /// permessage-deflate, each parameter at most once, known, and with a valid value.
    static func parse(_ header: String) throws(WebSocketError) -> WebSocketDeflateParameters {
        let offers = header.split(separator: ",", omittingEmptySubsequences: false)
        guard offers.count == 1 else { throw .invalidHandshake("the server chose extensions that were not offered (\(header))") }
        var parts = offers[0].split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.removeFirst().lowercased() == "permessage-deflate" else {
            throw .invalidHandshake("the server chose extensions that were not offered (\(header))")
        }
        var parameters = WebSocketDeflateParameters()
        var seen: Set<String> = []
        for part in parts {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            var value = pair.count > 1 ? pair[1] : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") { value = String(quoted.dropFirst().dropLast()) }
            guard seen.insert(name).inserted else { throw .invalidHandshake("permessage-deflate parameter \(name) given twice") }
            func bits() throws(WebSocketError) -> Int {
                // §7.1.2: an integer 8-15 without leading zeros; required in a response.
                guard let value, let number = Int(value), (8...15).contains(number), !value.hasPrefix("0") else {
                    throw .invalidHandshake("permessage-deflate \(name) has an invalid value (\(value ?? "none"))")
                }
                return number
            }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else { throw .invalidHandshake("permessage-deflate \(name) takes no value") }
                if name == "server_no_context_takeover" { parameters.serverNoContextTakeover = true } else { parameters.clientNoContextTakeover = true }
            case "server_max_window_bits": parameters.serverMaxWindowBits = try bits()
            case "client_max_window_bits": parameters.clientMaxWindowBits = try bits()
            default: throw .invalidHandshake("permessage-deflate parameter \(name) is unknown")
            }
        }
        return parameters
    }
}

/// Whether zlib could be loaded (`dlopen("libz.so.1")`, as libcurl loads it): without it nothing
/// is offered.
enum WebSocketZlib {
    static let isAvailable: Bool = ccurl_zlib_load(nil, 0) == 0
}

/// One direction's zlib stream: allocated once, ended with its owner. Used by one thread at a time.
private final class ZlibStream {
    let stream = UnsafeMutablePointer<ccurl_z_stream>.allocate(capacity: 1)
    private let isDeflate: Bool
    private(set) var isReady = false

    init(deflateWindowBits: Int?, inflateWindowBits: Int?) {
        stream.initialize(to: ccurl_z_stream())
        if let bits = deflateWindowBits {
            isDeflate = true
            isReady = ccurl_deflate_init(stream, -1, Int32(bits)) == CCURL_Z_OK
        } else {
            isDeflate = false
            isReady = ccurl_inflate_init(stream, Int32(inflateWindowBits ?? 15)) == CCURL_Z_OK
        }
    }

    deinit {
        if isReady { _ = isDeflate ? ccurl_deflate_end(stream) : ccurl_inflate_end(stream) }
        stream.deallocate()
    }
}

/// Compresses our messages (§7.2.1): deflate with a sync flush, the trailing `00 00 ff ff` cut.
final class WebSocketDeflater: @unchecked Sendable {  // used by the socket's thread alone
    private let zlib: ZlibStream
    private let resetsEachMessage: Bool

    /// `nil` where the window the server allows cannot be honoured (8: zlib's deflate needs 9) or
    /// zlib fails: then messages go uncompressed, which permessage-deflate allows.
    init?(_ parameters: WebSocketDeflateParameters) {
        guard WebSocketZlib.isAvailable, parameters.clientMaxWindowBits >= 9 else { return nil }
        zlib = ZlibStream(deflateWindowBits: parameters.clientMaxWindowBits, inflateWindowBits: nil)
        guard zlib.isReady else { return nil }
        resetsEachMessage = parameters.clientNoContextTakeover
    }

    /// The compressed payload of a message (`nil` if zlib failed: it is then sent uncompressed).
    func compress(_ payload: [UInt8]) -> [UInt8]? {
        // zlib counts input in 32 bits: a larger message goes uncompressed.
        guard payload.count < 1 << 31 else { return nil }
        let stream = zlib.stream
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(1024, min(payload.count / 2 + 64, 1 << 20)))
        var failed = false
        payload.withUnsafeBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    let status = ccurl_deflate(stream, Int32(CCURL_Z_SYNC_FLUSH))
                    if status != CCURL_Z_OK, status != CCURL_Z_BUF_ERROR { failed = true }
                    return out.count - Int(stream.pointee.avail_out)
                }
                output.append(contentsOf: chunk[..<produced])
            } while !failed && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
            stream.pointee.next_in = nil
        }
        if resetsEachMessage || failed { _ = ccurl_deflate_reset(stream) }
        guard !failed, output.count >= 4, output.suffix(4) == [0, 0, 0xFF, 0xFF] else { return nil }
        output.removeLast(4)
        return output
    }
}

/// Decompresses the peer's messages frame by frame (§7.2.2), never past the message size limit:
/// a small frame that inflates to gigabytes (a deflate bomb) fails at the limit, with at most one
/// chunk of output beyond it in memory.
final class WebSocketInflater: @unchecked Sendable {  // used by the socket's thread alone
    private let zlib: ZlibStream
    private let resetsEachMessage: Bool
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)

    init?(_ parameters: WebSocketDeflateParameters) {
        guard WebSocketZlib.isAvailable else { return nil }
        zlib = ZlibStream(deflateWindowBits: nil, inflateWindowBits: 15)
        guard zlib.isReady else { return nil }
        resetsEachMessage = parameters.serverNoContextTakeover
    }

    /// The bytes `payload` (a frame of a compressed message) inflates to; with `final`, the message
    /// ends here (the `00 00 ff ff` the sender cut is put back). `limit`: the most bytes the
    /// message may still grow by.
    func inflate(_ payload: [UInt8], final: Bool, limit: Int, messageLimit: Int) throws(WebSocketError) -> [UInt8] {
        var output: [UInt8] = []
        // zlib counts input in 32 bits: a frame over 1 GiB (a limit raised that far) goes in pieces.
        if payload.count <= 1 << 30 {
            try feed(payload, into: &output, limit: limit, messageLimit: messageLimit)
        } else {
            for start in stride(from: 0, to: payload.count, by: 1 << 30) {
                try feed(Array(payload[start..<min(payload.count, start + (1 << 30))]), into: &output, limit: limit, messageLimit: messageLimit)
            }
        }
        if final {
            try feed([0, 0, 0xFF, 0xFF], into: &output, limit: limit, messageLimit: messageLimit)
            if resetsEachMessage { _ = ccurl_inflate_reset(zlib.stream) }
        }
        return output
    }

    private func feed(_ input: [UInt8], into output: inout [UInt8], limit: Int, messageLimit: Int) throws(WebSocketError) {
        let stream = zlib.stream
        var status = Int32(CCURL_Z_OK)
        var tooLarge = false
        input.withUnsafeBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            while true {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    status = ccurl_inflate(stream, Int32(CCURL_Z_SYNC_FLUSH))
                    return out.count - Int(stream.pointee.avail_out)
                }
                if produced > 0 {
                    guard output.count + produced <= limit else {
                        tooLarge = true
                        break
                    }
                    output.append(contentsOf: chunk[..<produced])
                }
                if status == CCURL_Z_STREAM_END {
                    // The sender ended its stream (a block with BFINAL): what follows is a new one.
                    _ = ccurl_inflate_reset(stream)
                    status = Int32(CCURL_Z_OK)
                    if stream.pointee.avail_in == 0 { break }
                    continue
                }
                if status != CCURL_Z_OK { break }
                if stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 { break }
            }
            stream.pointee.next_in = nil
        }
        if tooLarge { throw .messageTooLarge(limit: messageLimit) }
        // Z_BUF_ERROR: no progress possible, i.e. all input used and all output given; not an error.
        guard status == CCURL_Z_OK || status == CCURL_Z_BUF_ERROR else {
            throw .protocolViolation("a compressed message that does not inflate (zlib \(status))")
        }
    }
}
