import Courier

/// The texts of `--help`, `--version` and usage errors.
enum Usage {
    static let version = "courier \(CourierVersion.current)"

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
        usage: courier [options] URL...        (curl's options; a body option implies post)
               courier get|post|put|patch|delete|head [options] URL...
               courier download [options] URL...
               courier demo
               courier ws [--echo] [--linger S] [-H LINE] [--protocol NAME] [--cacert FILE] [-k] URL
        Try 'courier --help' for more.
        """

    static var help: String {
        """
        courier: HTTP requests and downloads from the command line, built on the Courier library.
        Its options are curl's: a curl command line runs unchanged (Docs/CommandLine.md lists the
        few differences).

        USAGE
          courier [options] URL...               each URL a transfer of its own; the body to stdout
          courier get|post|put|patch|delete URL  the method by name (as -X); a body option implies post
          courier head URL                       a HEAD request, its head printed (as -I)
          courier download URL... [-o FILE | -d DIR] [--no-resume]
                                                 save files, several in parallel, resumable
          courier demo                           see the library at work on this machine, no network
                                                 needed: a GET, a 100 MB download cancelled half-way
                                                 and resumed, the three calling conventions
          courier ws [--echo] URL                a WebSocket (ws://, wss://): each stdin line sent as
                                                 text, each message received to stdout (text one a
                                                 line, binary as bytes); --echo sends every message
                                                 back instead of reading stdin; at the end of stdin
                                                 it closes once no message came for --linger SECONDS
                                                 (1); also -H LINE, --protocol NAME, --cacert FILE, -k

        REQUEST
              --url URL                a URL (as one given without an option)
              --url-query [+]NAME=VALUE | NAME@FILE
                                       add to each URL's query, encoded as --data-urlencode (+: as is)
          -X, --request METHOD         the method (upper-cased); must agree with a named command
          -I, --head                   a HEAD request; its head is the output
          -H, --header 'Name: value'   add a header; 'Name:' removes one courier sends itself, 'Name;' sends it empty
          -A, --user-agent TEXT        the User-Agent (default curl/LIBCURL-VERSION; '' sends none)
          -e, --referer URL            the Referer header
          -u, --user USER:PASSWORD     HTTP Basic credentials
              --bearer TOKEN           Authorization: Bearer TOKEN (--oauth2-bearer, curl's name)
          -b, --cookie 'N=V; N2=V2'|FILE
                                       send these cookies, or those of a cookie file (repeatable)
          -c, --cookie-jar FILE        save the cookies in curl's cookie-file format at the end
          -j, --junk-session-cookies   leave out the session cookies of -b's files (a new session)
          -r, --range RANGE            ask for bytes RANGE only (0-499, 500-, -500; 4 is 4-)
          -C, --continue-at OFFSET|-   resume the output file from OFFSET, or (-) from its size
              --etag-compare FILE      send If-None-Match with the ETag saved in FILE
          -z, --time-cond [-|=]DATE|FILE
                                       If-Modified-Since DATE (-: If-Unmodified-Since; FILE: its time);
                                       an answer whose Last-Modified does not meet it is dropped (304)
              --basic                  Basic credentials for -u (what -u sends anyway)
              --no-basic               Basic taken out of the methods --anyauth and the like allow
              --proto LIST             the schemes a URL may have, curl's list (-all,+https; exit 1)
              --disallow-username-in-url
                                       refuse a URL that names a user (exit 67)
              --compressed             offer gzip, deflate, br, zstd and decode the answer
                                       (without it nothing is offered and bodies are kept as sent)

        REQUEST BODY (POST unless -X says otherwise; -T is PUT)
          -d, --data TEXT|@FILE        form body (x-www-form-urlencoded); repeat to join with &;
                                       @FILE is read without its CR and LF, @- reads stdin
              --data-ascii TEXT|@FILE  the same as --data
              --data-binary TEXT|@FILE like --data, the bytes kept exactly as they are
              --data-raw TEXT          like --data, a leading @ taken literally
              --data-urlencode [NAME=]TEXT | [NAME]@FILE
                                       like --data, the text or file percent-encoded
          -G, --get                    send the --data pieces in the URL's query, as a GET
              --json TEXT|@FILE        JSON body; sets Content-Type and Accept to application/json
          -F, --form NAME=VALUE        multipart form field (repeatable);
              --form NAME=@PATH[;type=MIME][;filename=NAME]   a file part
          -T, --upload-file FILE       stream FILE as the body, with no Content-Type; to URL/FILE
                                       when the URL ends with /; - reads stdin; one -T per URL, in
                                       order ({a,b} uploads each); a URL without one sends nothing

        OUTPUT
          -o, --output FILE            write the body to FILE (- is stdout); one -o per URL, in order
          -O, --remote-name            write the body to a file named after the URL
              --remote-name-all        -O for every URL that has no -o
              --no-remote-name         the next URL's body to stdout, not to a file (over --remote-name-all)
          -J, --remote-header-name     with -O, the name the server gives in Content-Disposition
                                       (never a path; an existing file is not replaced)
              --output-dir DIR         where -o and -O files go
              --create-dirs            make the folders an output path names
              --remove-on-error        remove the output file of a transfer that failed
              --no-clobber, --clobber  keep an existing -o file: write FILE.1, FILE.2 ... instead (or not)
          -i, --include                write the response head (CRLF lines) before the body
              --no-include             undo an earlier -i
          -D, --dump-header FILE       write every response head to FILE (- for stdout)
              --etag-save FILE         save the response's ETag to FILE
          -w, --write-out FORMAT|@FILE print FORMAT after each transfer, also on failure: curl's
                                       variables (%{http_code} %{size_download} %{time_total}
                                       %{url_effective} %{json} ... %header{NAME}), \\n \\t %%
              --json-output            print {"status","headers","body"} as one JSON object instead
          -N, --no-buffer              write each chunk as it arrives, even JSON on a terminal
                                       (otherwise held to be pretty-printed)
          -s, --silent                 no progress, no error messages (exit status only)
          -S, --show-error             error messages even with -s
              --no-progress-meter      no progress; error messages kept
              --progress               show progress even when stderr is not a terminal (plain lines)
          -#, --progress-bar           the same as --progress
          -v, --verbose                request and response heads, redirects, retries and times on
                                       stderr, credentials redacted
              --trace FILE             the exchange written to FILE in curl's trace format (hex and text)
              --trace-ascii FILE       the same, as text only
              --trace-time             each trace entry starts with the time

        TRANSFER
          -L, --location               follow redirects (none without it: the 3xx is the answer)
          -:, --next                   what follows is another command line, run after this one
                                       (its own URLs and options; -s, -S, -v, --trace for all)
          -g, --globoff                no URL globbing: {a,b} [1-9] [a-z:2] taken literally
              --max-redirs N           with -L, follow at most N redirects (default 50; -1: no limit)
          -f, --fail                   exit 22 on HTTP status >= 400, writing nothing of the body
              --fail-with-body         exit 22 on HTTP status >= 400, the body written as usual
              --fail-early             stop at the first transfer that fails (one after another)
          -m, --max-time SECONDS       give up on each transfer after SECONDS (default: no limit)
              --timeout SECONDS        the same as --max-time
              --connect-timeout SECONDS
                                       give up when no connection, or no data, comes for SECONDS
              --retry N                retry a transfer N times on a timeout or a 408, 429, 500,
                                       502, 503, 504 (waiting 1 s, doubling; Retry-After wins)
              --retries N              the same as --retry
              --retry-delay SECONDS    wait SECONDS before each retry instead
              --retry-max-time SECONDS no retry once SECONDS have passed since the first attempt
              --retry-all-errors       retry on any failure
              --retry-connrefused      retry a refused connection too
              --max-filesize BYTES     fail (exit 63) on a larger body; k, M, G suffixes
          -Z, --parallel               run the URLs' transfers at once
              --parallel-max N         at most N at a time with -Z (default 50)
              --max-concurrent N       downloads in parallel (default 4)
              --engine curl|urlsession what carries the requests (default: curl on Linux; --version tells)

        DOWNLOAD
          -d, --dir DIR                save into DIR (created if missing), named after each URL
          -o, --output FILE            save the single URL as FILE
              --no-resume              ignore a .partial file left by an earlier run

        TLS AND PROXY (curl engine)
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

        DONE BY LIBCURL (curl engine; exit 4 on URLSession)
              --resolve HOST:PORT:ADDR use ADDR for HOST:PORT (repeatable)
              --connect-to HOST:PORT:HOST2:PORT2
                                       connect to HOST2:PORT2 for HOST:PORT (repeatable)
              --noproxy LIST           hosts reached without the proxy (comma-separated; * all)
          -p, --proxytunnel            plain http through the proxy in a CONNECT tunnel too
          -U, --proxy-user USER:PASSWORD
                                       credentials for the proxy (Basic unless one below says)
              --digest, --ntlm, --negotiate
                                       answer the server's challenge with this scheme (-u's login)
              --anyauth                the safest scheme the server offers
              --proxy-basic, --proxy-digest, --proxy-ntlm, --proxy-negotiate, --proxy-anyauth
                                       the same for the proxy's challenge (-U's login)
              --tr-encoding            ask for a compressed transfer encoding (TE: gzip)
          -n, --netrc                  take the login from ~/.netrc (URL credentials ignored)
              --netrc-optional         the same, URL credentials winning
              --netrc-file FILE        read FILE instead of ~/.netrc
          -Y, --speed-limit BYTES      give up (exit 28) on a transfer slower than BYTES/s for
          -y, --speed-time SECONDS     SECONDS on end (defaults: 1 byte/s, 30 s)
              --location-trusted       -L, and -u's credentials (and -H Cookie) go to other hosts too
              --post301, --post302, --post303
                                       with -L, a POST stays a POST (with its body) after that status
              --request-target TARGET  the request line's target instead of the URL's path (OPTIONS *)
              --path-as-is             send /../ and /./ in the URL's path as typed
              --interface NAME         connect from this interface, address or host
          -4, --ipv4                   resolve names to IPv4 addresses only
          -6, --ipv6                   resolve names to IPv6 addresses only
              --haproxy-protocol       start each connection with a PROXY protocol v1 line
              --raw                    the body as it came: chunk framing kept, codings not undone
              --http0.9, --no-http0.9  accept an HTTP/0.9 answer (no status line), or not (the default)
          -0, --http1.0                send requests as HTTP/1.0
              --proxy1.0 HOST[:PORT]   -x, speaking HTTP/1.0 to the proxy
              --socks4 HOST[:PORT], --socks4a HOST[:PORT], --socks5 HOST[:PORT]
                                       -x with a SOCKS proxy of that kind (socks4://… and so on)
              --socks5-hostname HOST[:PORT]
                                       the same, the proxy resolving the names (socks5h://)
              --proxy-header LINE      a header line for the proxy only (repeatable; @FILE reads lines)
              --ignore-content-length  read the body until the connection closes, whatever its length says
              --crlfile FILE           refuse a server certificate revoked by a CRL of FILE (PEM)
              --proxy-insecure         do not verify an https proxy's certificate

        GENERAL
          -K, --config FILE            read options from FILE, curl's config syntax (- for stdin)
          -q, --disable                first on the line: do not read ~/.curlrc (read otherwise, as curl)
          -h, --help                   show this help
          -V, --version                show the version

        Without a scheme, http:// is assumed. Progress goes to stderr, never stdout. On a terminal,
        JSON is pretty-printed and binary bodies are not shown; anywhere else the body is byte-exact.
        Ctrl-C keeps partial files; -C - resumes one, courier download resumes its own.

        EXIT CODES (curl's numbers; with several URLs, the last transfer's, or with -Z the first failure's)
        \(exitCodeTable)
        """
    }

    private static var exitCodeTable: String {
        ExitCode.allCases.compactMap { code in
            code.summary.map { "  " + String(code.rawValue).leftPadded(to: 3) + "  " + $0 }
        }.joined(separator: "\n")
    }
}
