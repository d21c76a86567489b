import CCurl
import Foundation

/// A request's header lines as libcurl takes them (`CURLOPT_HTTPHEADER`), in curl's order, with
/// the choices made on the way: the `Accept-Encoding` to offer, whether libcurl decodes, the
/// `User-Agent` that goes through libcurl's own option.
///
/// Built once for a given set of fields and shared by every request that has the same: most of a
/// network's requests carry the same few lines (its `User-Agent`, `Accept`, `Accept-Encoding`),
/// and building, ordering and copying them into libcurl's list was about a twentieth of a small
/// request's instructions (Docs/Performance.md). libcurl only reads the list, so one list can
/// serve several handles at once; it is freed when the last task holding it lets go.
final class CurlHeaderLines: @unchecked Sendable {
    // @unchecked: every property is set in init and never changed; libcurl only reads `list`.

    /// libcurl's list (`curl_slist`), or `nil` for none.
    let list: OpaquePointer?
    /// `CURLOPT_ACCEPT_ENCODING`'s value, `nil` to leave it unset (the network does not
    /// decompress). Never `""`: for "every coding this libcurl decodes" it is that list, spelled
    /// out (``CurlFeatures/acceptEncodingOffer``). libcurl only needs the option set to decode,
    /// and sends the list's own line; given `""`, it built the list of its decoders again for
    /// every request (1.3k instructions on 7.88.1, 0.9k on 8.14; Performance.md).
    let acceptEncoding: String?
    /// Whether libcurl decodes the body (`CURLOPT_HTTP_CONTENT_DECODING`).
    let decodes: Bool
    /// The `User-Agent` for `CURLOPT_USERAGENT` where libcurl writes the agent line itself
    /// (``LibcurlOptions/requestsTransferEncoding``; `""` for none); `nil` elsewhere, where the
    /// agent is a line of the list.
    let ownAgent: String?
    /// The agent a proxy's `CONNECT` carries (libcurl's own line, not the list's), if any.
    let proxyAgent: String?
    /// What the lines were made from: a request with the same gets the same lines.
    fileprivate let key: Key

    fileprivate struct Key {
        let fields: [(name: String, value: String)]
        let method: String
        let bodyLength: Int64?
        let decompresses: Bool
        let toHTTPProxy: Bool

        func matches(_ other: Key) -> Bool {
            guard method == other.method, bodyLength == other.bodyLength, decompresses == other.decompresses,
                  toHTTPProxy == other.toHTTPProxy, fields.count == other.fields.count else { return false }
            for (mine, theirs) in zip(fields, other.fields) where mine.name != theirs.name || mine.value != theirs.value {
                return false
            }
            return true
        }
    }

    private init(list: OpaquePointer?, acceptEncoding: String?, decodes: Bool, ownAgent: String?, proxyAgent: String?, key: Key) {
        self.list = list
        self.acceptEncoding = acceptEncoding
        self.decodes = decodes
        self.ownAgent = ownAgent
        self.proxyAgent = proxyAgent
        self.key = key
    }

    deinit {
        if let list { ccurl_slist_free_all(list) }
    }
}

extension CurlHeaderLines {
    /// The last lines a network built, for its next request (the loop's thread and the blocking
    /// callers' threads build them, hence the lock: under it run only the comparison and the
    /// swap of the kept lines; they are built outside it).
    final class Cache: Sendable {
        private let last = Locked<CurlHeaderLines?>(nil)

        /// The lines for `request`, reused when the last request's fields were the same.
        /// `negotiatesAuth` and `settings` are the network's, the same for every request, so
        /// they are not part of what is compared.
        func lines(for request: WireRequest, method: String, bodyLength: Int64?, decompresses: Bool, toHTTPProxy: Bool,
                   negotiatesAuth: Bool, settings: CurlSettings) -> CurlHeaderLines {
            let key = Key(fields: request.fields, method: method, bodyLength: bodyLength, decompresses: decompresses,
                          toHTTPProxy: toHTTPProxy)
            if let reused = last.withLock({ $0.flatMap { $0.key.matches(key) ? $0 : nil } }) { return reused }
            let made = CurlHeaderLines.make(key: key, negotiatesAuth: negotiatesAuth, settings: settings)
            last.withLock { $0 = made }
            return made
        }
    }

    /// The lines for the fields of `key`: the configuration's, then the request's (which win),
    /// and the ones libcurl's own options would write, each in curl's place (``CurlHeaderOrder``).
    fileprivate static func make(key: Key, negotiatesAuth: Bool, settings: CurlSettings) -> CurlHeaderLines {
        let removedHeader = CurlRequestOptions.removedHeader
        let method = key.method
        let bodyLength = key.bodyLength
        // Names compared ignoring ASCII case in place (HTTPHeaders.namesMatch): Foundation's
        // case-insensitive compare, and then lower-cased copies, were a visible part of a request's cost.
        let named = HTTPHeaders.namesMatch
        // Room for the lines added below (Accept-Encoding, Accept, Content-Length, Expect), so
        // that the list grows once.
        var fields = settings.additionalHeaders
        fields.reserveCapacity(fields.count + key.fields.count + 4)
        if fields.isEmpty {
            fields.append(contentsOf: key.fields)
        } else {
            for (name, value) in key.fields {
                fields.removeAll { named($0.name, name) }
                fields.append((name, value))
            }
        }
        // Accept-Encoding goes through libcurl's own option, which also turns decoding on: libcurl
        // then decodes every coding it supports, offered or not. None asked for: every encoding
        // this libcurl supports, named (what libcurl would send for ""). A request that asks for
        // no coding (`identity`, as downloads do: see DownloadBody) gets the body as the server
        // sent it, as curl without `--compressed` does: a server that compresses anyway cannot
        // make a megabyte a gigabyte. Not decompressing at all (Network.decompressesResponses):
        // the option stays unset, so libcurl offers nothing and decodes nothing, as curl without
        // --compressed; a request's own Accept-Encoding is then an ordinary header.
        //
        // The header line itself goes in the custom list (``CurlHeaderOrder`` puts it where curl
        // does, after Accept): every libcurl since 7.21 then skips its own line (it checks the
        // list for one). Its line was formatted twice a request, a character at a time by
        // libcurl's printf (about 2% of a small request's instructions); the bytes are the same.
        var decodes = false
        var acceptEncoding: String?
        if key.decompresses {
            let encoding = fields.first { named($0.name, "Accept-Encoding") }?.value ?? ""
            fields.removeAll { named($0.name, "Accept-Encoding") }
            decodes = ContentCoding.asksForDecoding(encoding)
            let offer = encoding.isEmpty ? settings.features.acceptEncodingOffer : encoding
            acceptEncoding = offer
            fields.insert(("Accept-Encoding", offer), at: 0)
        }
        // libcurl answers a challenge itself (LibcurlOptions.authMethods beyond Basic), and its
        // first request may go with an empty body: `Content-Length: 0`, no `Expect`, a list's
        // own length skipped. It writes those lines right only when the list leaves them to it,
        // so there the body's length, its `Expect` and the form type POST sends by default
        // (which libcurl writes itself, after the length) are libcurl's, as in curl.
        var leavesTypeToLibcurl = false
        if negotiatesAuth, bodyLength != nil {
            fields.removeAll { named($0.name, "Expect") && $0.value.lowercased() == "100-continue" }
            leavesTypeToLibcurl = method == "PUT"   // libcurl's PUT sends no type of its own
            if method == "POST", fields.contains(where: { named($0.name, "Content-Type") && $0.value == "application/x-www-form-urlencoded" }) {
                fields.removeAll { named($0.name, "Content-Type") }
                leavesTypeToLibcurl = true
            }
        }
        if bodyLength != nil, !leavesTypeToLibcurl, method != "HEAD", !fields.contains(where: { named($0.name, "Content-Type") }) {
            // A body sent without a media type (RequestBody.untypedFile) goes without one:
            // CURLOPT_POST would otherwise label it application/x-www-form-urlencoded.
            fields.append(("Content-Type", removedHeader))
        }
        // An empty `Expect:` stops libcurl waiting up to a second for a `100 Continue` that many
        // servers never send. libcurl only adds one to a request with a body: without one, the
        // line would only be one more entry for libcurl to look through for each header it adds.
        // A request that names its own `Expect` (`100-continue`: curl's uploads) keeps it, and
        // libcurl then waits for the `100` as curl does.
        if bodyLength != nil, !negotiatesAuth, !fields.contains(where: { named($0.name, "Expect") }) { fields.append(("Expect", "")) }
        // Through an HTTP proxy, libcurl's Proxy-Connection line in curl's place (CurlProxyConnection).
        if key.toHTTPProxy, !fields.contains(where: { named($0.name, "Proxy-Connection") }),
           !CurlHostLists.namesProxyConnection(settings.connection.libcurl.proxyHeaders) {
            fields.append(("Proxy-Connection", "Keep-Alive"))
        }
        // A request that asks for a chunked body (`Transfer-Encoding: chunked`, curl's -H) gets
        // it from libcurl, which then writes no length: nor does Courier, as curl sends none.
        let chunked = fields.contains { named($0.name, "Transfer-Encoding") && $0.value.lowercased().contains("chunked") }
        CurlHeaderOrder.arrange(&fields, bodyLength: method == "HEAD" || negotiatesAuth || chunked ? nil : bodyLength)
        var ownAgent: String?
        if settings.connection.libcurl.requestsTransferEncoding {
            // libcurl writes its `Connection: TE` and `TE` lines (CURLOPT_TRANSFER_ENCODING) after
            // its own User-Agent and Accept lines and before the whole list: those two are left to
            // libcurl here, so that they come first, as curl sends them. Set either way (an empty
            // agent is none): a reused handle must not keep another request's.
            let agent = fields.firstIndex { named($0.name, "User-Agent") && $0.value != removedHeader }
            ownAgent = agent.map { fields[$0].value } ?? ""
            if let agent { fields.remove(at: agent) }
            // libcurl's own `Accept: */*` goes where no list names one.
            fields.removeAll { named($0.name, "Accept") && $0.value == "*/*" }
        }
        // A tunnel's CONNECT carries libcurl's own User-Agent line, not the list's (which goes to
        // the server only): the same value, as curl sends it to the proxy too.
        let proxyAgent = settings.proxies == nil ? nil
            : fields.first(where: { named($0.name, "User-Agent") }).map(\.value).flatMap { $0 != removedHeader && !$0.isEmpty ? $0 : nil }
        var list: OpaquePointer?
        for (name, value) in fields {
            // `Name;` is libcurl's way of sending a header with an empty value; `Name:` removes one.
            let removed = value == removedHeader || (value.isEmpty && named(name, "Expect"))
            list = removed ? appendLine(name, ":", "", to: list)
                : value.isEmpty ? appendLine(name, ";", "", to: list) : appendLine(name, ": ", value, to: list)
        }
        return CurlHeaderLines(list: list, acceptEncoding: acceptEncoding, decodes: decodes, ownAgent: ownAgent,
                               proxyAgent: proxyAgent, key: key)
    }

    /// Appends the line `name` `separator` `value` to a libcurl header list, built as a C string
    /// in a temporary buffer (on the stack for any usual line): an interpolated `String` was a
    /// heap allocation or two for every header line longer than 15 bytes.
    static func appendLine(_ name: String, _ separator: StaticString, _ value: String, to list: OpaquePointer?) -> OpaquePointer? {
        let count = name.utf8.count + separator.utf8CodeUnitCount + value.utf8.count
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { line in
            var end = 0
            for byte in name.utf8 { line[end] = CChar(bitPattern: byte); end += 1 }
            for index in 0..<separator.utf8CodeUnitCount { line[end] = CChar(bitPattern: separator.utf8Start[index]); end += 1 }
            for byte in value.utf8 { line[end] = CChar(bitPattern: byte); end += 1 }
            line[end] = 0
            return ccurl_slist_append(list, line.baseAddress!)
        }
    }
}
