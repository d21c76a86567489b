import Courier

/// The options that say how transfers run: failures, redirects, limits, retries, parallelism,
/// the engine, TLS and proxies.
extension OptionTable {
    static let transferOptions: [OptionSpec] = [
        .flag("fail", "f") { $0.fail = true },
        .flag("fail-with-body") { $0.failWithBody = true },
        .flag("fail-early") { $0.failEarly = true },
        .flag("location", "L") { $0.location = true },
        // URL globbing ({a,b}, [1-3]: URLGlob) off.
        .flag("globoff", "g") { $0.globOff = true },
        .value("max-time", "m") { options, value, spelling in options.timeout = try seconds(value, spelling) },
        .value("timeout") { options, value, spelling in options.timeout = try seconds(value, spelling) },
        .value("connect-timeout") { options, value, spelling in options.connectTimeout = try seconds(value, spelling) },
        .value("retry") { options, value, spelling in options.retries = try count(value, spelling) },
        .value("retries") { options, value, spelling in options.retries = try count(value, spelling) },
        .value("retry-delay") { options, value, spelling in options.retryDelay = try seconds(value, spelling, allowingZero: true) },
        // 0 means no limit, as in curl.
        .value("retry-max-time") { options, value, spelling in
            let limit = try seconds(value, spelling, allowingZero: true)
            options.retryMaxTime = limit > 0 ? limit : nil
        },
        .flag("retry-all-errors") { $0.retryAllErrors = true },
        .flag("retry-connrefused") { $0.retryConnectionRefused = true },
        .value("max-redirs") { options, value, spelling in
            guard let count = Int(value), count >= -1 else {
                throw Failure.usage("\(spelling) needs a whole number of 0 or more (-1: no limit), not '\(value)'")
            }
            options.maxRedirects = count
        },
        .value("max-filesize") { options, value, spelling in
            guard let bytes = byteCount(value), bytes > 0 else {
                throw Failure.usage("\(spelling) needs a size in bytes, optionally with k, M or G, not '\(value)'")
            }
            options.maxFilesize = bytes
        },
        .value("max-concurrent") { options, value, spelling in options.maxConcurrent = try count(value, spelling, minimum: 1) },
        .flag("parallel", "Z") { $0.parallel = true },
        // curl takes 1 to 300; anything above is 300.
        .value("parallel-max") { options, value, spelling in options.parallelMax = min(300, try count(value, spelling, minimum: 1)) },
        .value("engine") { options, value, spelling in
            guard let engine = engines[value.lowercased()] else {
                throw Failure.usage("\(spelling) takes curl or urlsession, not '\(value)'")
            }
            options.engine = engine
        },
        // The TLS and proxy options: the last one given wins, as in curl.
        .value("cacert") { options, value, _ in options.caCertificates = value },
        .value("pinnedpubkey") { options, value, _ in options.pinnedPublicKeys = value },
        .value("cert", "E") { options, value, _ in options.clientCertificate = value },
        .value("key") { options, value, _ in options.clientKey = value },
        .flag("insecure", "k") { $0.insecure = true },
        .value("proxy", "x") { options, value, _ in
            options.proxy = value
            options.libcurl.proxyUsesHTTP1_0 = false
        },
        // The last of these (and -0) wins, as in curl.
        .flag("http1.1") { $0.setHTTPVersion(.http1_1) },
        .flag("http2") { $0.setHTTPVersion(.http2) },
        .flag("http2-prior-knowledge") { $0.setHTTPVersion(.http2PriorKnowledge) },
        .value("unix-socket") { options, value, _ in options.unixSocket = value },
        .value("limit-rate") { options, value, spelling in
            // curl's suffixes (k, M, G); 0 is curl's "no limit".
            guard let rate = OptionTable.byteCount(value) else {
                throw Failure.usage("\(spelling) needs a rate in bytes per second, optionally with k, M or G, not '\(value)'")
            }
            options.limitRate = rate > 0 ? rate : nil
        },
    ]
}

extension Options {
    /// `--http1.1`, `--http2`, `--http2-prior-knowledge`: over an earlier `-0`.
    mutating func setHTTPVersion(_ version: HTTPVersionPreference) {
        httpVersion = version
        libcurl.usesHTTP1_0 = false
    }
}
