import Courier

/// The options libcurl implements itself, which courier hands to it as they are
/// (``LibcurlOptions``, the curl engine only), and `-z`, which courier turns into the header
/// libcurl would send.
extension OptionTable {
    static let libcurlOptions: [OptionSpec] = [
        // Repeatable: each adds an entry, as in curl.
        .value("resolve") { options, value, _ in options.libcurl.resolve.append(value) },
        .value("connect-to") { options, value, _ in options.libcurl.connectTo.append(value) },
        // The last wins, as in curl.
        .value("noproxy") { options, value, _ in options.libcurl.noProxy = value },
        .flag("proxytunnel", "p") { $0.libcurl.proxyTunnel = true },
        .value("proxy-user", "U") { options, value, _ in options.libcurl.proxyCredentials = value },
        .flag("tr-encoding") { $0.libcurl.requestsTransferEncoding = true },
        .flag("netrc", "n") { $0.libcurl.netrc = .required },
        .flag("netrc-optional") { $0.libcurl.netrc = .optional },
        .value("netrc-file") { options, value, _ in
            options.libcurl.netrcFile = value
            // curl: --netrc-file implies --netrc unless --netrc-optional says otherwise.
            if options.libcurl.netrc == .ignored { options.libcurl.netrc = .required }
        },
        // Basic is what -u sends already (courier's own header): curl's --basic asks for it.
        // The others are libcurl's, which answers the server's challenge; the last one given wins.
        .flag("basic") { $0.libcurl.authMethods = nil },
        // curl's --no-basic takes Basic out of the methods; with none left, libcurl's default
        // (Basic) is what stays, as curl then sets no CURLOPT_HTTPAUTH at all.
        .flag("no-basic") { options in
            guard var methods = options.libcurl.authMethods else { return }
            methods.remove(.basic)
            options.libcurl.authMethods = methods.isEmpty ? nil : methods
        },
        .flag("digest") { $0.libcurl.authMethods = .digest },
        .flag("ntlm") { $0.libcurl.authMethods = .ntlm },
        .flag("negotiate") { $0.libcurl.authMethods = .negotiate },
        .flag("anyauth") { $0.libcurl.authMethods = .any },
        // The same for the proxy (-U's credentials).
        .flag("proxy-basic") { $0.libcurl.proxyAuthMethods = nil },
        .flag("proxy-digest") { $0.libcurl.proxyAuthMethods = .digest },
        .flag("proxy-ntlm") { $0.libcurl.proxyAuthMethods = .ntlm },
        .flag("proxy-negotiate") { $0.libcurl.proxyAuthMethods = .negotiate },
        .flag("proxy-anyauth") { $0.libcurl.proxyAuthMethods = .any },
        .value("request-target") { options, value, _ in options.libcurl.requestTarget = value },
        .flag("path-as-is") { $0.libcurl.keepsPathAsIs = true },
        .value("interface") { options, value, _ in options.libcurl.interface = value },
        .flag("ipv4", "4") { $0.libcurl.ipResolve = .v4 },
        .flag("ipv6", "6") { $0.libcurl.ipResolve = .v6 },
        .flag("haproxy-protocol") { $0.libcurl.sendsHAProxyHeader = true },
        .flag("raw") { $0.libcurl.keepsEncodings = true },
        .flag("http0.9") { $0.libcurl.allowsHTTP09 = true },
        .flag("no-http0.9") { $0.libcurl.allowsHTTP09 = false },
        // -0 and the --http1.1/--http2 family: the last one given wins, as in curl.
        .flag("http1.0", "0") { options in
            options.libcurl.usesHTTP1_0 = true
            options.httpVersion = nil
        },
        // curl's -x, --proxy1.0 and --socks… all set its one proxy, each with its type; the
        // last one given wins. A SOCKS proxy goes to libcurl as a URL whose scheme says the
        // type, unless the value names a scheme itself (which libcurl lets win, as in curl).
        .value("proxy1.0") { options, value, _ in
            options.proxy = value
            options.libcurl.proxyUsesHTTP1_0 = true
        },
        .value("socks4") { options, value, _ in options.setSOCKSProxy(value, scheme: "socks4") },
        .value("socks4a") { options, value, _ in options.setSOCKSProxy(value, scheme: "socks4a") },
        .value("socks5") { options, value, _ in options.setSOCKSProxy(value, scheme: "socks5") },
        .value("socks5-hostname") { options, value, _ in options.setSOCKSProxy(value, scheme: "socks5h") },
        .flag("location-trusted") { options in
            options.location = true
            options.libcurl.sendsCredentialsToOtherHosts = true
        },
        .flag("post301") { $0.libcurl.postRedirects.insert(.status301) },
        .flag("post302") { $0.libcurl.postRedirects.insert(.status302) },
        .flag("post303") { $0.libcurl.postRedirects.insert(.status303) },
        // Repeatable, and @FILE as -H reads it.
        .value("proxy-header") { options, value, _ in options.libcurl.proxyHeaders += headerLines(value) },
        .flag("ignore-content-length") { $0.libcurl.ignoresContentLength = true },
        .value("crlfile") { options, value, _ in options.libcurl.crlFile = value },
        .flag("proxy-insecure") { $0.libcurl.trustsProxyBlindly = true },
        .value("time-cond", "z") { options, value, _ in options.timeCondition = value },
        // curl's -Y and -y, libcurl's low-speed limit: each fills in curl's default for the
        // other (1 byte/s, 30 s); -Y 0 turns it off, as in curl.
        .value("speed-limit", "Y") { options, value, spelling in
            var limit = options.libcurl.lowSpeedLimit ?? LibcurlOptions.LowSpeedLimit()
            limit.bytesPerSecond = try count(value, spelling)
            options.libcurl.lowSpeedLimit = limit
        },
        .value("speed-time", "y") { options, value, spelling in
            var limit = options.libcurl.lowSpeedLimit ?? LibcurlOptions.LowSpeedLimit()
            limit.seconds = try count(value, spelling)
            options.libcurl.lowSpeedLimit = limit
        },
    ]
}

extension Options {
    /// `--socks4`, `--socks4a`, `--socks5`, `--socks5-hostname`: curl's proxy, of that type.
    mutating func setSOCKSProxy(_ value: String, scheme: String) {
        proxy = value.contains("://") ? value : "\(scheme)://\(value)"
        libcurl.proxyUsesHTTP1_0 = false
    }
}
