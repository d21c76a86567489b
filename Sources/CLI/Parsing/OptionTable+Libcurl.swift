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
