import CCurl

/// Sets options on one easy handle and keeps the first one libcurl refuses, so that a refusal
/// ends the request as ``NetworkError/curlOptionRefused(option:libcurlVersion:_:)`` naming the
/// option and the libcurl, instead of being lost or reported as a bare code.
///
/// After a refusal the later options are not set: the transfer will not run.
struct CurlOptionSetter {
    let easy: OpaquePointer
    /// The first option libcurl refused, and its `CURLcode`.
    private(set) var refusal: (option: Int32, code: Int32)?

    init(easy: OpaquePointer) {
        self.easy = easy
    }

    mutating func set(_ option: Int32, _ value: Int) {
        guard refusal == nil else { return }
        record(option, ccurl_easy_setopt_long(easy, option, value))
    }

    /// libcurl copies string options: `value` need not outlive the call.
    mutating func set(_ option: Int32, _ value: String) {
        guard refusal == nil else { return }
        let easy = easy
        record(option, value.withCString { ccurl_easy_setopt_pointer(easy, option, $0) })
    }

    mutating func set(_ option: Int32, offset value: Int64) {
        guard refusal == nil else { return }
        record(option, ccurl_easy_setopt_offset(easy, option, value))
    }

    /// A pointer libcurl keeps (not copied): it must stay valid for the transfer.
    mutating func set(_ option: Int32, pointer value: UnsafeRawPointer?) {
        guard refusal == nil else { return }
        record(option, ccurl_easy_setopt_pointer(easy, option, value))
    }

    mutating func set(_ option: Int32, _ callback: ccurl_data_callback) {
        guard refusal == nil else { return }
        record(option, ccurl_easy_setopt_data_callback(easy, option, callback))
    }

    mutating func set(_ option: Int32, _ callback: ccurl_progress_callback) {
        guard refusal == nil else { return }
        record(option, ccurl_easy_setopt_progress_callback(easy, option, callback))
    }

    mutating func set(_ option: Int32, _ callback: ccurl_seek_callback) {
        guard refusal == nil else { return }
        record(option, ccurl_easy_setopt_seek_callback(easy, option, callback))
    }

    private mutating func record(_ option: Int32, _ code: Int32) {
        if code != 0 { refusal = (option, code) }
    }

    /// Throws the refusal, if libcurl refused an option.
    func check() throws {
        guard let refusal else { return }
        let name = Self.name(of: refusal.option)
        // The libcurl that refused: the loaded one, whatever version the engine's choices assumed.
        let libcurlVersion = CurlFeatures.loaded?.version ?? "(not loaded)"
        throw CurlTask.ConfigurationFailure(
            code: refusal.code,
            detail: String(cString: ccurl_easy_strerror(refusal.code)),
            option: name, libcurlVersion: libcurlVersion)
    }

    /// libcurl's name for an option the engine sets (`CURLOPT_…`), or its number.
    static func name(of option: Int32) -> String {
        names[option] ?? "CURLoption \(option)"
    }

    /// Every option the engine sets, by number (see CCurl.h and Courier.docc/Engines.md).
    private static let names: [Int32: String] = {
        let pairs: [(Int32, String)] = [
            (Int32(CCURLOPT_WRITEDATA), "CURLOPT_WRITEDATA"),
            (Int32(CCURLOPT_URL), "CURLOPT_URL"),
            (Int32(CCURLOPT_PROXY), "CURLOPT_PROXY"),
            (Int32(CCURLOPT_READDATA), "CURLOPT_READDATA"),
            (Int32(CCURLOPT_ERRORBUFFER), "CURLOPT_ERRORBUFFER"),
            (Int32(CCURLOPT_WRITEFUNCTION), "CURLOPT_WRITEFUNCTION"),
            (Int32(CCURLOPT_READFUNCTION), "CURLOPT_READFUNCTION"),
            (Int32(CCURLOPT_LOW_SPEED_LIMIT), "CURLOPT_LOW_SPEED_LIMIT"),
            (Int32(CCURLOPT_LOW_SPEED_TIME), "CURLOPT_LOW_SPEED_TIME"),
            (Int32(CCURLOPT_HTTPHEADER), "CURLOPT_HTTPHEADER"),
            (Int32(CCURLOPT_SSLCERT), "CURLOPT_SSLCERT"),
            (Int32(CCURLOPT_HEADERDATA), "CURLOPT_HEADERDATA"),
            (Int32(CCURLOPT_CUSTOMREQUEST), "CURLOPT_CUSTOMREQUEST"),
            (Int32(CCURLOPT_NOPROGRESS), "CURLOPT_NOPROGRESS"),
            (Int32(CCURLOPT_NOBODY), "CURLOPT_NOBODY"),
            (Int32(CCURLOPT_POST), "CURLOPT_POST"),
            (Int32(CCURLOPT_PROXYPORT), "CURLOPT_PROXYPORT"),
            (Int32(CCURLOPT_XFERINFODATA), "CURLOPT_XFERINFODATA"),
            (Int32(CCURLOPT_SSL_VERIFYPEER), "CURLOPT_SSL_VERIFYPEER"),
            (Int32(CCURLOPT_CAINFO), "CURLOPT_CAINFO"),
            (Int32(CCURLOPT_HEADERFUNCTION), "CURLOPT_HEADERFUNCTION"),
            (Int32(CCURLOPT_SSL_VERIFYHOST), "CURLOPT_SSL_VERIFYHOST"),
            (Int32(CCURLOPT_SSLKEY), "CURLOPT_SSLKEY"),
            (Int32(CCURLOPT_NOSIGNAL), "CURLOPT_NOSIGNAL"),
            (Int32(CCURLOPT_ACCEPT_ENCODING), "CURLOPT_ACCEPT_ENCODING"),
            (Int32(CCURLOPT_POSTFIELDSIZE_LARGE), "CURLOPT_POSTFIELDSIZE_LARGE"),
            (Int32(CCURLOPT_CONNECTTIMEOUT_MS), "CURLOPT_CONNECTTIMEOUT_MS"),
            (Int32(CCURLOPT_PROTOCOLS), "CURLOPT_PROTOCOLS"),
            (Int32(CCURLOPT_XFERINFOFUNCTION), "CURLOPT_XFERINFOFUNCTION"),
            (Int32(CCURLOPT_PINNEDPUBLICKEY), "CURLOPT_PINNEDPUBLICKEY"),
            (Int32(CCURLOPT_HTTP_VERSION), "CURLOPT_HTTP_VERSION"),
            (Int32(CCURLOPT_BUFFERSIZE), "CURLOPT_BUFFERSIZE"),
            (Int32(CCURLOPT_PIPEWAIT), "CURLOPT_PIPEWAIT"),
            (Int32(CCURLOPT_UNIX_SOCKET_PATH), "CURLOPT_UNIX_SOCKET_PATH"),
            (Int32(CCURLOPT_MAX_SEND_SPEED_LARGE), "CURLOPT_MAX_SEND_SPEED_LARGE"),
            (Int32(CCURLOPT_MAX_RECV_SPEED_LARGE), "CURLOPT_MAX_RECV_SPEED_LARGE"),
            (Int32(CCURLOPT_SUPPRESS_CONNECT_HEADERS), "CURLOPT_SUPPRESS_CONNECT_HEADERS"),
            (Int32(CCURLOPT_PROTOCOLS_STR), "CURLOPT_PROTOCOLS_STR"),
            (Int32(CCURLOPT_PROXYUSERPWD), "CURLOPT_PROXYUSERPWD"),
            (Int32(CCURLOPT_NETRC), "CURLOPT_NETRC"),
            (Int32(CCURLOPT_HTTPPROXYTUNNEL), "CURLOPT_HTTPPROXYTUNNEL"),
            (Int32(CCURLOPT_NETRC_FILE), "CURLOPT_NETRC_FILE"),
            (Int32(CCURLOPT_NOPROXY), "CURLOPT_NOPROXY"),
            (Int32(CCURLOPT_INTERFACE), "CURLOPT_INTERFACE"),
            (Int32(CCURLOPT_PROXYTYPE), "CURLOPT_PROXYTYPE"),
            (Int32(CCURLOPT_IPRESOLVE), "CURLOPT_IPRESOLVE"),
            (Int32(CCURLOPT_HTTP_TRANSFER_DECODING), "CURLOPT_HTTP_TRANSFER_DECODING"),
            (Int32(CCURLOPT_PATH_AS_IS), "CURLOPT_PATH_AS_IS"),
            (Int32(CCURLOPT_REQUEST_TARGET), "CURLOPT_REQUEST_TARGET"),
            (Int32(CCURLOPT_HAPROXYPROTOCOL), "CURLOPT_HAPROXYPROTOCOL"),
            (Int32(CCURLOPT_HTTP09_ALLOWED), "CURLOPT_HTTP09_ALLOWED"),
            (Int32(CCURLOPT_RESOLVE), "CURLOPT_RESOLVE"),
            (Int32(CCURLOPT_TRANSFER_ENCODING), "CURLOPT_TRANSFER_ENCODING"),
            (Int32(CCURLOPT_CONNECT_TO), "CURLOPT_CONNECT_TO"),
            (Int32(CCURLOPT_PROXYHEADER), "CURLOPT_PROXYHEADER"),
            (Int32(CCURLOPT_IGNORE_CONTENT_LENGTH), "CURLOPT_IGNORE_CONTENT_LENGTH"),
            (Int32(CCURLOPT_CRLFILE), "CURLOPT_CRLFILE"),
            (Int32(CCURLOPT_PROXY_SSL_VERIFYPEER), "CURLOPT_PROXY_SSL_VERIFYPEER"),
            (Int32(CCURLOPT_PROXY_SSL_VERIFYHOST), "CURLOPT_PROXY_SSL_VERIFYHOST"),
        ]
        return Dictionary(uniqueKeysWithValues: pairs)
    }()
}
