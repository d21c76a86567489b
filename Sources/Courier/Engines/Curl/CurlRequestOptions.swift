import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sets an easy handle up for one request: URL, method, headers, body, callbacks, limits, proxy, TLS.
enum CurlRequestOptions {
    /// Applies `request` to `easy`, with the task's `options` (its timeouts; the rate limit is
    /// ``CurlConnectionOptions``' business). `headers` holds the handle's header list (replaced here);
    /// `context` is the task the callbacks receive; `decompresses` is the transfer's
    /// ``Network/decompressesResponses``. Returns whether libcurl decodes the body (the response
    /// head's `decodesContent`), decided here once rather than again from the headers per response.
    @discardableResult
    static func apply(_ request: WireRequest, upload: CurlTask.Upload, options taskOptions: TaskOptions, settings: CurlSettings, decompresses: Bool = true,
                      to easy: OpaquePointer, headers: inout OpaquePointer?, context: UnsafeMutableRawPointer) throws -> Bool {
        // Every option's result is checked: the first one libcurl refuses ends the request,
        // named (CurlOptionSetter.check, at the end).
        var options = CurlOptionSetter(easy: easy)
        func set(_ option: Int32, _ value: Int) { options.set(option, value) }
        func set(_ option: Int32, _ value: String) { options.set(option, value) }
        set(Int32(CCURLOPT_URL), request.url.absoluteString)
        set(Int32(CCURLOPT_NOSIGNAL), 1)   // no SIGALRM in a multi-threaded process
        set(Int32(CCURLOPT_FOLLOWLOCATION), 0)
        // http and https only, by the option this libcurl has (the string form is 7.85.0+).
        if settings.features.hasProtocolStringOptions {
            set(Int32(CCURLOPT_PROTOCOLS_STR), "http,https")
            set(Int32(CCURLOPT_REDIR_PROTOCOLS_STR), "http,https")
        } else {
            set(Int32(CCURLOPT_PROTOCOLS), Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS))
            set(Int32(CCURLOPT_REDIR_PROTOCOLS), Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS))
        }
        // Through a proxy an https request first opens a tunnel with `CONNECT`; without this,
        // libcurl hands the proxy's reply (`200 Connection established`) to the header callback
        // like any head, and it would be taken for the response. Set always: the proxy may come
        // from the environment, unknown here. A refused tunnel still ends the transfer with an
        // error, and CURLINFO_HTTP_CONNECTCODE keeps the proxy's status.
        // A network that keeps heads as received (the CLI) gets the proxy's reply too, as curl
        // writes it for -i: CurlTask tells it from the response by CURLINFO_HTTP_CONNECTCODE.
        set(Int32(CCURLOPT_SUPPRESS_CONNECT_HEADERS), settings.connection.keepsHeadBytes ? 0 : 1)

        // Callbacks, all with the task as their context.
        options.set(Int32(CCURLOPT_HEADERFUNCTION), curlHeaderCallback)
        options.set(Int32(CCURLOPT_HEADERDATA), pointer: context)
        options.set(Int32(CCURLOPT_WRITEFUNCTION), curlWriteCallback)
        options.set(Int32(CCURLOPT_WRITEDATA), pointer: context)

        // Method and body.
        let method = request.method
        let negotiatesAuth = settings.connection.libcurl.negotiatesAuthentication || settings.connection.libcurl.negotiatesProxyAuthentication
        let bodyLength: Int64?
        switch upload {
        case .none: bodyLength = nil
        case let .data(data): bodyLength = Int64(data.count)
        case let .file(file):
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
            guard let size else {
                throw CurlTask.ConfigurationFailure(code: Int32(CCURLE_READ_ERROR), detail: "cannot read \(file.path)")
            }
            bodyLength = size
        }
        if method == "HEAD" {
            set(Int32(CCURLOPT_NOBODY), 1)
        } else if let bodyLength {
            if negotiatesAuth, method == "PUT" {
                // libcurl's own PUT, as curl's -T: its first, empty request of an authentication
                // round then goes with `Content-Length: 0` and without `Expect` (see below).
                set(Int32(CCURLOPT_UPLOAD), 1)
                options.set(Int32(CCURLOPT_INFILESIZE_LARGE), offset: bodyLength)
            } else {
                set(Int32(CCURLOPT_POST), 1)
                options.set(Int32(CCURLOPT_POSTFIELDSIZE_LARGE), offset: bodyLength)
            }
            options.set(Int32(CCURLOPT_READFUNCTION), curlReadCallback)
            options.set(Int32(CCURLOPT_READDATA), pointer: context)
            if negotiatesAuth {
                // libcurl may send the body, get a challenge, and send it again (--anyauth).
                options.set(Int32(CCURLOPT_SEEKFUNCTION), curlSeekCallback)
                options.set(Int32(CCURLOPT_SEEKDATA), pointer: context)
            }
            set(Int32(CCURLOPT_NOPROGRESS), 0)
            options.set(Int32(CCURLOPT_XFERINFOFUNCTION), curlProgressCallback)
            options.set(Int32(CCURLOPT_XFERINFODATA), pointer: context)
            if method != "POST", !(negotiatesAuth && method == "PUT") { set(Int32(CCURLOPT_CUSTOMREQUEST), method) }
        } else if method == "GET" {
            set(Int32(CCURLOPT_HTTPGET), 1)
        } else {
            set(Int32(CCURLOPT_CUSTOMREQUEST), method)
        }

        // Headers: the configuration's, then the request's (which win). Names compared ignoring
        // ASCII case in place (HTTPHeaders.namesMatch): Foundation's case-insensitive compare,
        // and then lower-cased copies, were a visible part of a request's cost.
        let named = HTTPHeaders.namesMatch
        // Room for the lines added below (Accept-Encoding, Accept, Content-Length, Expect), so
        // that the list grows once.
        var fields = settings.additionalHeaders
        let requestFields = request.fields
        fields.reserveCapacity(fields.count + requestFields.count + 4)
        if fields.isEmpty {
            fields.append(contentsOf: requestFields)
        } else {
            for (name, value) in requestFields {
                fields.removeAll { named($0.name, name) }
                fields.append((name, value))
            }
        }
        // Accept-Encoding goes through libcurl's own option, which also turns decoding on: libcurl
        // then decodes every coding it supports, offered or not. None asked for: every encoding
        // this libcurl supports (""). A request that asks for no coding (`identity`, as downloads
        // do: see DownloadBody) gets the body as the server sent it, as curl without
        // `--compressed` does: a server that compresses anyway cannot make a megabyte a gigabyte.
        // Not decompressing at all (Network.decompressesResponses): the option stays unset, so
        // libcurl offers nothing and decodes nothing, as curl without --compressed; a request's
        // own Accept-Encoding is then an ordinary header.
        //
        // The header line itself goes in the custom list (``CurlHeaderOrder`` puts it where curl
        // does, after Accept): every libcurl since 7.21 then skips its own line (it checks the
        // list for one). Its line was formatted twice a request, a character at a time by
        // libcurl's printf (about 2% of a small request's instructions); the bytes are the same.
        var decodes = false
        if decompresses {
            let encoding = fields.first { named($0.name, "Accept-Encoding") }?.value ?? ""
            fields.removeAll { named($0.name, "Accept-Encoding") }
            decodes = ContentCoding.asksForDecoding(encoding)
            set(Int32(CCURLOPT_ACCEPT_ENCODING), encoding)
            set(Int32(CCURLOPT_HTTP_CONTENT_DECODING), decodes ? 1 : 0)   // libcurl 7.16.2+
            fields.insert(("Accept-Encoding", encoding.isEmpty ? settings.features.acceptEncodingOffer : encoding), at: 0)
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
            fields.append(("Content-Type", CurlRequestOptions.removedHeader))
        }
        // An empty `Expect:` stops libcurl waiting up to a second for a `100 Continue` that many
        // servers never send. libcurl only adds one to a request with a body: without one, the
        // line would only be one more entry for libcurl to look through for each header it adds.
        // A request that names its own `Expect` (`100-continue`: curl's uploads) keeps it, and
        // libcurl then waits for the `100` as curl does.
        if bodyLength != nil, !negotiatesAuth, !fields.contains(where: { named($0.name, "Expect") }) { fields.append(("Expect", "")) }
        // Through an HTTP proxy, libcurl's Proxy-Connection line in curl's place (CurlProxyConnection).
        let toHTTPProxy = settings.proxies != nil && CurlProxyConnection.applies(to: request.url, settings: settings)
        if toHTTPProxy, !fields.contains(where: { named($0.name, "Proxy-Connection") }),
           !CurlHostLists.namesProxyConnection(settings.connection.libcurl.proxyHeaders) {
            fields.append(("Proxy-Connection", "Keep-Alive"))
        }
        // A request that asks for a chunked body (`Transfer-Encoding: chunked`, curl's -H) gets
        // it from libcurl, which then writes no length: nor does Courier, as curl sends none.
        let chunked = fields.contains { named($0.name, "Transfer-Encoding") && $0.value.lowercased().contains("chunked") }
        CurlHeaderOrder.arrange(&fields, bodyLength: method == "HEAD" || negotiatesAuth || chunked ? nil : bodyLength)
        if settings.connection.libcurl.requestsTransferEncoding {
            // libcurl writes its `Connection: TE` and `TE` lines (CURLOPT_TRANSFER_ENCODING) after
            // its own User-Agent and Accept lines and before the whole list: those two are left to
            // libcurl here, so that they come first, as curl sends them. Set either way (an empty
            // agent is none): a reused handle must not keep another request's.
            let agent = fields.firstIndex { named($0.name, "User-Agent") && $0.value != removedHeader }
            set(Int32(CCURLOPT_USERAGENT), agent.map { fields[$0].value } ?? "")
            if let agent { fields.remove(at: agent) }
            // libcurl's own `Accept: */*` goes where no list names one.
            fields.removeAll { named($0.name, "Accept") && $0.value == "*/*" }
        }
        if let old = headers { ccurl_slist_free_all(old) }
        headers = nil
        for (name, value) in fields {
            // `Name;` is libcurl's way of sending a header with an empty value; `Name:` removes one.
            let removed = value == removedHeader || (value.isEmpty && named(name, "Expect"))
            headers = removed ? appendLine(name, ":", "", to: headers)
                : value.isEmpty ? appendLine(name, ";", "", to: headers) : appendLine(name, ": ", value, to: headers)
        }
        options.set(Int32(CCURLOPT_HTTPHEADER), pointer: UnsafeRawPointer(headers))

        // Limits. Courier's own deadline is the real timeout, and the transfer watches the idle
        // timeout itself, to the fraction of a second (StallWatch): libcurl's stall limit (under
        // 1 byte/s, whole seconds) is a backstop a second later. The connect timeout is
        // libcurl's, exact; without one, the idle timeout's backstop bounds connecting too.
        let idle = TaskOptions.backstop(for: taskOptions.idleTimeout)
        if let connect = taskOptions.connectTimeout.flatMap({ $0.isFinite && $0 > 0 ? $0 : nil }) ?? idle {
            // Rounded up: a positive limit under a millisecond must not become 0, libcurl's "none".
            set(Int32(CCURLOPT_CONNECTTIMEOUT_MS), Int((min(connect, 86_400) * 1000).rounded(.up)))
        }
        if let idle {
            set(Int32(CCURLOPT_LOW_SPEED_LIMIT), 1)
            set(Int32(CCURLOPT_LOW_SPEED_TIME), Int(min(idle, 86_400)))
        }

        if let proxies = settings.proxies {
            // A tunnel's CONNECT carries libcurl's own User-Agent line, not the list's (which
            // goes to the server only): the same value, as curl sends it to the proxy too.
            if let agent = fields.first(where: { named($0.name, "User-Agent") })?.value, agent != removedHeader, !agent.isEmpty {
                set(Int32(CCURLOPT_USERAGENT), agent)
            }
            // An empty proxy turns libcurl's reading of the environment off.
            let proxy = proxies.proxy(for: request.url)
            set(Int32(CCURLOPT_PROXY), proxy?.host ?? "")
            if let port = proxy?.port { set(Int32(CCURLOPT_PROXYPORT), port) }
            // Set either way: a reused handle must not keep another request's list. The user's
            // proxy lines (--proxy-header) go in it too: to the proxy only, after the request's
            // own fields in a proxy request, and alone in a tunnel's CONNECT, as libcurl sends them.
            let lists = settings.hostLists
            let proxyList = toHTTPProxy ? lists.proxyHeadersWithoutOwnLine ?? CurlProxyConnection.ownLineRemoved : lists.proxyHeaders
            options.set(Int32(CCURLOPT_PROXYHEADER), pointer: proxyList.map { UnsafeRawPointer($0) })
        }
        settings.tls.apply(to: &options)
        try options.check()
        return decodes
    }
}

extension CurlRequestOptions {
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

    /// Marks a field of the list that removes one of libcurl's own headers rather than sending a
    /// value (no header value can hold a NUL: HeaderValidation refuses it).
    static let removedHeader = "\u{0}removed"
}

// MARK: - The C callbacks

// libcurl calls these on the loop thread with the task as context; the task outlives its handle's
// time in the multi handle (the loop holds it), so an unretained reference is safe.

private func task(_ context: UnsafeMutableRawPointer?) -> CurlTask {
    Unmanaged<CurlTask>.fromOpaque(context!).takeUnretainedValue()
}

private let curlHeaderCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    let accepted = task(context).header(UnsafeRawBufferPointer(start: buffer, count: length))
    return accepted ? length : 0
}

private let curlWriteCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    let accepted = task(context).write(UnsafeRawBufferPointer(start: buffer, count: length))
    return accepted ? length : Int(CCURL_WRITEFUNC_PAUSE)
}

private let curlReadCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    return task(context).read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
}

private let curlSeekCallback: ccurl_seek_callback = { context, offset, _ in
    // libcurl seeks from the start only (SEEK_SET): CURL_SEEKFUNC_OK 0, CURL_SEEKFUNC_CANTSEEK 2.
    task(context).rewind(to: Int64(offset)) ? 0 : 2
}

private let curlProgressCallback: ccurl_progress_callback = { context, _, _, uploadTotal, uploaded in
    task(context).progress(uploaded: uploaded, uploadTotal: uploadTotal)
    return 0
}
