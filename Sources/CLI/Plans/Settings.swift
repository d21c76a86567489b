import Courier
import Foundation

/// Settings every command shares.
struct Settings: Sendable {
    /// `-s`: no progress, and no error messages unless `-S`.
    var silent: Bool
    /// `-S`: error messages even with `-s`.
    var showError: Bool
    var fail: Bool
    /// `-L` for requests; downloads always follow.
    var followsRedirects: Bool
    /// `--compressed` for requests (curl's default is off); downloads let the library choose.
    var decompresses: Bool
    /// Whether `--retry` is the library's retry policy (downloads) or the command's own loop,
    /// curl's rules (requests, see ``RetryRules``).
    var retriesInLibrary: Bool
    /// `--progress`: progress even when stderr is not a terminal (as plain lines), or with `-s`.
    var progressRequested: Bool
    /// `--no-progress-meter`: no progress, error messages kept.
    var noProgressMeter: Bool
    /// The overall deadline of each request; `.infinity` when `--timeout` is not given, as curl.
    var timeout: TimeInterval
    /// `--connect-timeout`: how long to wait for the connection (TCP, TLS, a proxy's tunnel) on
    /// the curl engine; on URLSession, which reports no connect, until the first byte.
    var connectTimeout: TimeInterval?
    var retries: Int
    /// `--retry-delay`: a fixed wait before each retry instead of the growing, jittered one.
    var retryDelay: TimeInterval?
    /// `--retry-max-time`: no retry starts later than this many seconds after the first attempt.
    var retryMaxTime: TimeInterval?
    var maxConcurrent: Int
    /// `--max-redirs`: `nil` for the default (curl's 50 with `-L`), `-1` for no limit of courier's own.
    var maxRedirects: Int?
    /// `--engine`, or `.automatic` (libcurl on Linux unless `COURIER_ENGINE` says otherwise).
    var engine: Network.Engine
    /// `--cacert`, `--pinnedpubkey`, `--cert`, `--key`, `-k`.
    var tls: TLSOptions
    /// Whether the command keeps the cookies servers set and sends them back. Requests: only
    /// with `-b` or `-c`, as curl, whose cookie engine is off without them; downloads always.
    var keepsCookies = true
    /// `-x`: every request goes through this proxy instead of the environment's `http_proxy`
    /// and `https_proxy`.
    var proxy: String?
    /// `--http1.1`/`--http2`/`--http2-prior-knowledge`, `--unix-socket`, `--limit-rate`.
    var connection: ConnectionOptions

    /// The engine each `Network` is asked for: ``engine``, but with `-s` the engine that choice
    /// resolves to. A `Network` that wanted libcurl and got URLSession (a libcurl older than
    /// 7.68.0, or none) makes the library print a warning on stderr; one asked for URLSession
    /// outright says nothing, and `-s` is silent, as curl's. The warning is no error (the
    /// transfer goes on), so `-S` does not bring it back.
    var networkEngine: Network.Engine {
        silent ? engine.resolved : engine
    }

    /// - Throws: A usage error for a TLS or proxy option when the engine in use is not libcurl.
    init(_ options: Options, followsRedirects: Bool = true, decompresses: Bool = true, retriesInLibrary: Bool = true,
         defaultMaxRedirects: Int? = nil) throws(Failure) {
        silent = options.silent
        showError = options.showError
        fail = options.fail
        self.followsRedirects = followsRedirects
        self.decompresses = decompresses
        self.retriesInLibrary = retriesInLibrary
        progressRequested = options.progress && !options.noProgressMeter
        noProgressMeter = options.noProgressMeter
        timeout = options.timeout ?? .infinity
        connectTimeout = options.connectTimeout
        retries = options.retries
        retryDelay = options.retryDelay
        retryMaxTime = options.retryMaxTime
        maxConcurrent = options.maxConcurrent
        maxRedirects = options.maxRedirects ?? defaultMaxRedirects
        engine = options.engine ?? .automatic
        tls = TLSOptions(
            certificateAuthorities: options.caCertificates.map { URL(fileURLWithPath: $0) },
            pinnedPublicKeys: options.pinnedPublicKeys.map { $0.split(separator: ";").map(String.init) } ?? [],
            clientCertificate: options.clientCertificate.map { URL(fileURLWithPath: $0) },
            clientKey: options.clientKey.map { URL(fileURLWithPath: $0) },
            allowsInsecureConnections: options.insecure)
        proxy = options.proxy
        connection = ConnectionOptions(unixSocketPath: options.unixSocket, httpVersion: options.httpVersion ?? .http2,
                                       rateLimit: options.limitRate.map { RateLimit(bytesPerSecond: $0) } ?? RateLimit())
        // curl waits for a stalled server for ever unless told (-y, -m); so does courier. A
        // connect timeout is one, as curl's, not an idle timeout.
        connection.idleTimeout = .infinity
        connection.connectTimeout = options.connectTimeout
        connection.libcurl = options.libcurl
        // -i, -D and -v write the heads as received (HeadText): the curl engine keeps their bytes.
        connection.keepsHeadBytes = true
        // -u with --digest, --ntlm, --negotiate or --anyauth: libcurl logs in (RequestHeaders sends no Basic line then).
        if options.libcurl.authMethods != nil { connection.libcurl.credentials = options.user }
        try Self.checkLibcurlOptions(options.libcurl, engine: engine)

        if options.clientKey != nil, options.clientCertificate == nil { throw .usage("--key needs --cert") }
        let curlOnly = [(options.caCertificates != nil, "--cacert"), (options.pinnedPublicKeys != nil, "--pinnedpubkey"),
                        (options.clientCertificate != nil, "--cert"), (options.clientKey != nil, "--key"),
                        (options.insecure, "--insecure"), (options.proxy != nil, "--proxy"),
                        (options.httpVersion == .http1_1, "--http1.1"), (options.httpVersion == .http2PriorKnowledge, "--http2-prior-knowledge"),
                        (options.unixSocket != nil, "--unix-socket"), (options.limitRate != nil, "--limit-rate")]
        if let option = curlOnly.first(where: \.0)?.1, engine.resolved != .curl {
            // URLSession would ignore these on Linux: refused rather than silently dropped.
            if engine != .urlSession, let reason = Network.Engine.curlUnavailableReason {
                throw .usage("\(option) needs the curl engine, which cannot be used here: \(reason)")
            }
            throw .usage("\(option) needs the curl engine (--engine curl)")
        }
    }
}

extension Settings {
    /// The options only libcurl implements (``LibcurlOptions``) on another engine: refused with
    /// curl's exit code for a feature not built in, nothing sent, rather than silently dropped.
    static func checkLibcurlOptions(_ libcurl: LibcurlOptions, engine: Network.Engine) throws(Failure) {
        guard libcurl != LibcurlOptions(), engine.resolved != .curl else { return }
        let given = [(!libcurl.resolve.isEmpty, "--resolve"), (!libcurl.connectTo.isEmpty, "--connect-to"),
                     (libcurl.noProxy != nil, "--noproxy"), (libcurl.proxyTunnel, "--proxytunnel"),
                     (libcurl.proxyCredentials != nil, "--proxy-user"), (libcurl.requestsTransferEncoding, "--tr-encoding"),
                     (libcurl.netrcFile != nil, "--netrc-file"), (libcurl.netrc == .optional, "--netrc-optional"),
                     (libcurl.netrc == .required, "--netrc"), (libcurl.authMethods == .digest, "--digest"),
                     (libcurl.authMethods == .ntlm, "--ntlm"), (libcurl.authMethods == .negotiate, "--negotiate"),
                     (libcurl.authMethods == .any, "--anyauth"), (libcurl.proxyAuthMethods == .digest, "--proxy-digest"),
                     (libcurl.proxyAuthMethods == .ntlm, "--proxy-ntlm"), (libcurl.proxyAuthMethods == .negotiate, "--proxy-negotiate"),
                     (libcurl.proxyAuthMethods == .any, "--proxy-anyauth"), (libcurl.requestTarget != nil, "--request-target"),
                     (libcurl.keepsPathAsIs, "--path-as-is"), (libcurl.interface != nil, "--interface"),
                     (libcurl.ipResolve == .v4, "--ipv4"), (libcurl.ipResolve == .v6, "--ipv6"),
                     (libcurl.sendsHAProxyHeader, "--haproxy-protocol"), (libcurl.keepsEncodings, "--raw"),
                     (libcurl.allowsHTTP09, "--http0.9"), (libcurl.proxyUsesHTTP1_0, "--proxy1.0"),
                     (libcurl.usesHTTP1_0, "--http1.0"), (libcurl.postRedirects.contains(.status301), "--post301"),
                     (libcurl.postRedirects.contains(.status302), "--post302"), (libcurl.postRedirects.contains(.status303), "--post303"),
                     (libcurl.sendsCredentialsToOtherHosts, "--location-trusted"),
                     (libcurl.ignoresContentLength, "--ignore-content-length"),
                     (libcurl.crlFile != nil, "--crlfile"), (!libcurl.proxyHeaders.isEmpty, "--proxy-header"),
                     (libcurl.trustsProxyBlindly, "--proxy-insecure")]
        let option = given.first(where: \.0)?.1 ?? "a libcurl option"
        throw Failure(.notBuiltIn, "\(option) is done by libcurl, and the URLSession engine cannot pass it on: use the curl engine (--engine curl)")
    }
}
