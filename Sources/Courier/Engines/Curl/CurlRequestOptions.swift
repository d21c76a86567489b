import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sets an easy handle up for one request: URL, method, headers, body, callbacks, limits, proxy, TLS.
enum CurlRequestOptions {
    /// Applies `request` to `easy`, with the task's `options` (its timeouts; the rate limit is
    /// ``CurlConnectionOptions``' business). `headers` holds the handle's header lines (replaced here,
    /// taken from the network's `headerCache` where its last request had the same fields);
    /// `context` is the task the callbacks receive; `decompresses` is the transfer's
    /// ``Network/decompressesResponses``. Returns whether libcurl decodes the body (the response
    /// head's `decodesContent`), decided here once rather than again from the headers per
    /// response, and whether the request is https.
    @discardableResult
    static func apply(_ request: WireRequest, upload: CurlTask.Upload, options taskOptions: TaskOptions, settings: CurlSettings, decompresses: Bool = true,
                      to easy: OpaquePointer, headers: inout CurlHeaderLines?, headerCache: CurlHeaderLines.Cache,
                      context: UnsafeMutableRawPointer) throws -> Applied {
        // Every option's result is checked: the first one libcurl refuses ends the request,
        // named (CurlOptionSetter.check, at the end).
        var options = CurlOptionSetter(easy: easy)
        func set(_ option: Int32, _ value: Int) { options.set(option, value) }
        func set(_ option: Int32, _ value: String) { options.set(option, value) }
        let urlString = request.url.absoluteString
        set(Int32(CCURLOPT_URL), urlString)
        set(Int32(CCURLOPT_NOSIGNAL), 1)   // no SIGALRM in a multi-threaded process
        // Every handle comes new or reset (CurlLoop.begin), so options are set only where they
        // differ from libcurl's defaults: redirects are never libcurl's (CURLOPT_FOLLOWLOCATION
        // stays 0), a GET is the default method, decoding is on unless turned off.
        // http and https only, by the option this libcurl has (the string form is 7.85.0+). No
        // limit for libcurl's redirects (CURLOPT_REDIR_PROTOCOLS): it follows none, and
        // RedirectPolicy refuses other schemes for Courier's own. Set anyway, libcurl parsed its
        // "http,https" on every request for nothing (Performance.md).
        if settings.features.hasProtocolStringOptions {
            set(Int32(CCURLOPT_PROTOCOLS_STR), "http,https")
        } else {
            set(Int32(CCURLOPT_PROTOCOLS), Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS))
        }
        // Through a proxy an https request first opens a tunnel with `CONNECT`; without this,
        // libcurl hands the proxy's reply (`200 Connection established`) to the header callback
        // like any head, and it would be taken for the response. Set always: the proxy may come
        // from the environment, unknown here. A refused tunnel still ends the transfer with an
        // error, and CURLINFO_HTTP_CONNECTCODE keeps the proxy's status.
        // A network that keeps heads as received (the CLI) gets the proxy's reply too, as curl
        // writes it for -i: CurlTask tells it from the response by CURLINFO_HTTP_CONNECTCODE.
        if !settings.connection.keepsHeadBytes { set(Int32(CCURLOPT_SUPPRESS_CONNECT_HEADERS), 1) }

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
        } else if method != "GET" {
            set(Int32(CCURLOPT_CUSTOMREQUEST), method)
        }

        // Headers: built once for a set of fields and reused while the network's requests carry
        // the same (CurlHeaderLines).
        let toHTTPProxy = settings.proxies != nil && CurlProxyConnection.applies(to: request.url, settings: settings)
        let lines = headerCache.lines(for: request, method: method, bodyLength: bodyLength, decompresses: decompresses,
                                      toHTTPProxy: toHTTPProxy, negotiatesAuth: negotiatesAuth, settings: settings)
        headers = lines
        if let encoding = lines.acceptEncoding {
            set(Int32(CCURLOPT_ACCEPT_ENCODING), encoding)
            if !lines.decodes { set(Int32(CCURLOPT_HTTP_CONTENT_DECODING), 0) }   // libcurl 7.16.2+
        }
        if let agent = lines.ownAgent { set(Int32(CCURLOPT_USERAGENT), agent) }
        options.set(Int32(CCURLOPT_HTTPHEADER), pointer: UnsafeRawPointer(lines.list))

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
            // A tunnel's CONNECT carries libcurl's own User-Agent line (CurlHeaderLines.proxyAgent).
            if let agent = lines.proxyAgent { set(Int32(CCURLOPT_USERAGENT), agent) }
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
        return Applied(decodes: lines.decodes, usesTLS: CurlConnectionOptions.isHTTPS(absoluteURL: urlString))
    }

    /// What ``apply(_:upload:options:settings:decompresses:to:headers:headerCache:context:)`` decided.
    struct Applied {
        /// Whether libcurl decodes the body.
        let decodes: Bool
        /// Whether the request is https (a TLS handshake is due), read from the URL's text as
        /// libcurl was given it: `URL.scheme` parses the URL again (0.4k a request).
        let usesTLS: Bool
    }
}

extension CurlRequestOptions {
    /// Marks a field of the list that removes one of libcurl's own headers rather than sending a
    /// value (no header value can hold a NUL: HeaderValidation refuses it).
    static let removedHeader = "\u{0}removed"
}

// MARK: - The C callbacks

// libcurl calls these on the loop thread with the task as context; the task outlives its handle's
// time in the multi handle (the loop holds it), so an unretained reference is safe.

// Each callback borrows the task for its call (`_withUnsafeGuaranteedRef`): the loop's reference
// keeps it alive, and a retain and a release per call (ten header lines, each body chunk) are
// saved.
private func withTask<Result>(_ context: UnsafeMutableRawPointer?, _ body: (CurlTask) -> Result) -> Result {
    Unmanaged<CurlTask>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
}

private let curlHeaderCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    let accepted = withTask(context) { $0.header(UnsafeRawBufferPointer(start: buffer, count: length)) }
    return accepted ? length : 0
}

private let curlWriteCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    let accepted = withTask(context) { $0.write(UnsafeRawBufferPointer(start: buffer, count: length)) }
    return accepted ? length : Int(CCURL_WRITEFUNC_PAUSE)
}

private let curlReadCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    return withTask(context) { $0.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length)) }
}

private let curlSeekCallback: ccurl_seek_callback = { context, offset, _ in
    // libcurl seeks from the start only (SEEK_SET): CURL_SEEKFUNC_OK 0, CURL_SEEKFUNC_CANTSEEK 2.
    withTask(context) { $0.rewind(to: Int64(offset)) } ? 0 : 2
}

private let curlProgressCallback: ccurl_progress_callback = { context, _, _, uploadTotal, uploaded in
    withTask(context) { $0.progress(uploaded: uploaded, uploadTotal: uploadTotal) }
    return 0
}
