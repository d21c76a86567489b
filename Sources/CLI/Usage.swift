import Courier

/// The texts of `--help`, `--version` and usage errors.
enum Usage {
    static let version = "courier 0.1.0"

    /// `--version`: courier's version, the engine requests use here when `--engine` is not
    /// given, and the libcurl the curl engine runs on — its version line, then what it can do
    /// (TLS library, HTTP/2, decoders, the options taken for its version) — or why it cannot be used.
    static var versionText: String {
        let engine = Network.Engine.automatic.resolved
        let name = OptionTable.engines.first { $0.value == engine }?.key ?? engine.rawValue
        guard let line = Network.Engine.curlVersion, let features = Network.Engine.curlFeatures else {
            let reason = Network.Engine.curlUnavailableReason ?? "unknown reason"
            return "\(version)\nengine: \(name)\nlibcurl cannot be loaded: \(reason); the curl engine is unavailable"
        }
        return "\(version)\nengine: \(name)\n\(line)\n\(features)"
    }

    /// Printed after a usage error, with the problem on the line before it.
    static let short = """
        usage: courier [get|post|put|patch|delete|head] [options] URL
               courier download [options] URL...
               courier demo
        Try 'courier --help' for more.
        """

    static var help: String {
        """
        courier: HTTP requests and downloads from the command line, built on the Courier library.

        USAGE
          courier [get] URL                      stream the body to stdout
          courier post|put|patch|delete URL      send a request (a body option implies post)
          courier -X METHOD URL                  any method, custom ones too (PROPFIND, PURGE)
          courier head URL                       print the status line and headers only
          courier download URL... [-o FILE | -d DIR] [--no-resume]
                                                 save files, several in parallel, resumable
          courier demo                           see the library at work on this machine, no network
                                                 needed: a GET, a 100 MB download cancelled half-way
                                                 and resumed, the three calling conventions

        REQUEST OPTIONS
          -H, --header 'Name: value'   add a header (repeatable)
          -u, --user USER:PASSWORD     HTTP Basic credentials
              --bearer TOKEN           Authorization: Bearer TOKEN
          -X, --request METHOD         the method (upper-cased); must agree with a named command
          -d, --data TEXT|@FILE        form body (application/x-www-form-urlencoded); repeat to join with &;
                                       @FILE sends the file as is, @- reads stdin
              --data-raw TEXT          like --data, a leading @ taken literally
              --data-urlencode [NAME=]TEXT | [NAME]@FILE
                                       like --data, the text or file percent-encoded
          -G, --get                    send the --data pieces in the URL's query, as a GET
              --json TEXT|@FILE        JSON body; sets Content-Type and Accept to application/json
          -F, --form NAME=VALUE        multipart form field (repeatable);
              --form NAME=@PATH[;type=MIME][;filename=NAME]   a file part
          -T, --upload-file FILE       stream FILE as the body (PUT unless a command is named)
          -A, --user-agent TEXT        the User-Agent header
          -e, --referer URL            the Referer header
          -r, --range RANGE            ask for bytes RANGE only (0-499, 500-, -500)
          -b, --cookie 'N=V; N2=V2'|FILE
                                       send these cookies, or those of a cookie file (repeatable)
          -c, --cookie-jar FILE        save the cookies in curl's cookie-file format at the end

        OUTPUT OPTIONS
          -o, --output FILE            write the body to FILE (streamed, resumable for get)
          -i, --include                print the status line and headers before the body
              --json-output            print {"status","headers","body"} as one JSON object instead
          -w, --write-out FORMAT|@FILE print FORMAT on stdout at the end, also on failure:
                                       %{http_code} %{size_download} %{time_total} %{url_effective}
                                       %{content_type} %{num_redirects} %{num_retries} %{method}
                                       %{exitcode} %{errormsg} %{json} (all as one object); \\n \\t %%
          -v, --verbose                request and response heads, redirects, retries and times on
                                       stderr, credentials redacted
          -N, --no-buffer              write each chunk as it arrives, even JSON on a terminal
                                       (otherwise held to be pretty-printed)
          -s, --silent                 no progress or notices (errors are still reported)
          -f, --fail                   exit 22 on HTTP status >= 400, with the body on stderr
              --progress               show progress even when stderr is not a terminal (plain lines)

        DOWNLOAD OPTIONS
          -d, --dir DIR                save into DIR (created if missing), named after each URL
          -o, --output FILE            save the single URL as FILE
              --no-resume              ignore a .partial file left by an earlier run

        TLS AND PROXY OPTIONS (curl engine)
              --cacert FILE            trust the CAs in FILE (PEM) instead of the system's
              --pinnedpubkey sha256//BASE64[;sha256//BASE64...]
                                       require the server's public key to be one of these (or a key FILE)
          -E, --cert FILE              client certificate (PEM)
              --key FILE               its private key, if not in the --cert file
          -k, --insecure               do not verify the server's certificate (test servers only)
          -x, --proxy [SCHEME://]HOST[:PORT]
                                       send every request through this proxy (default: $http_proxy,
                                       $https_proxy, minus $no_proxy)
              --http1.1                HTTP/1.1 only
              --http2                  HTTP/2 where https negotiates it, else HTTP/1.1 (the default)
              --http2-prior-knowledge  HTTP/2 from the first byte, over plain http too (h2c)
              --unix-socket PATH       connect to this Unix domain socket instead of the URL's host
              --limit-rate RATE        at most RATE bytes per second each way; k, M, G suffixes

        GENERAL OPTIONS
          -m, --timeout SECONDS        give up on a request after SECONDS (default: no limit)
              --connect-timeout SECONDS
                                       give up when no connection, or no data, comes for SECONDS
              --retries N              retry failed requests N times (default 0)
              --retry-delay SECONDS    wait SECONDS before each retry (default: growing, jittered)
              --retry-max-time SECONDS no retry later than SECONDS after the first attempt
              --max-redirs N           follow at most N redirects (default 10; -1: no limit of ours)
              --max-filesize BYTES     fail (exit 63) on a larger body; k, M, G suffixes
              --max-concurrent N       transfers in parallel (default 4)
              --engine curl|urlsession what carries the requests (default: curl on Linux; --version tells)
          -h, --help                   show this help
          -V, --version                show the version

        Without a scheme, http:// is assumed. Progress goes to stderr, never stdout. On a terminal,
        JSON is pretty-printed and binary bodies are not shown; anywhere else the body is byte-exact.
        Ctrl-C keeps partial downloads; run the same command again to resume.

        EXIT CODES
        \(exitCodeTable)
        """
    }

    private static var exitCodeTable: String {
        ExitCode.allCases.compactMap { code in
            code.summary.map { "  " + String(code.rawValue).leftPadded(to: 3) + "  " + $0 }
        }.joined(separator: "\n")
    }
}
