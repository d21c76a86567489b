"""The cases of scripts/parity: curl command lines as scripts write them, each run once with the
real curl and once with courier (see parity_run.py).

Placeholders in arguments, files and stdin: {U} the loopback server (http://127.0.0.1:PORT),
{T} the same server's routes over TLS with a self-signed certificate, {R} a port where nothing
listens, {P} the server's port. Routes: parity_server.py.

`differs` declares the aspects (exit, stdout, files, sent, quiet) where courier differs from curl
on purpose, each with its reason; Docs/CommandLine.md lists the same differences.
"""

import json

# Rules that make run-to-run noise comparable: times and speeds are never the same twice.
TIMES = [(r"[0-9]+\.[0-9]{6}", "<seconds>")]
SPEED = [(r"(?<=speed )[0-9]+", "<speed>")]


def json_keys(data):
    """The names of a JSON object's members, sorted: %{json}'s values are the other cases' business."""
    try:
        return " ".join(sorted(json.loads(data))).encode()
    except ValueError:
        return b"not JSON: " + data


class Case:
    def __init__(self, name, args, files=None, stdin=None, stdout_rules=(), file_rules=(), quiet=None,
                 unordered=False, differs=None, timeout=30, stdout_transform=None,
                 home_files=None):
        self.name = name
        self.args = args
        self.files = files or {}
        self.home_files = home_files or {}
        self.stdin = stdin
        self.stdout_rules = list(stdout_rules)
        self.file_rules = list(file_rules)
        self.unordered = unordered
        self.differs = differs or {}
        self.timeout = timeout
        self.stdout_transform = stdout_transform or (lambda data: data)
        if quiet is None:
            quiet = any(a == "--silent" or a == "--no-progress-meter"
                        or (a.startswith("-") and not a.startswith("--") and "s" in a and len(a) <= 6)
                        for a in args)
        self.quiet = quiet


FORM_CRLF = b"name=pen\r\ncolour=blue\n&size=2\n"
JSON_BODY = b'{"name": "pen",\n "price": 1.10}\n'
UPLOAD = b"line one\nline two\r\n\x00binary\xff\n"
CONFIG = b"""# a config file as scripts write them
url = "{U}/echo/from-config"
silent
header = "X-From: config"
--user-agent "configured/1.0"
"""

CASES = [
    # --- plain requests -------------------------------------------------------------------------
    Case("get", ["{U}/hello"]),
    Case("get-silent", ["-s", "{U}/hello"]),
    Case("get-url-option", ["-s", "--url", "{U}/hello"]),
    Case("get-json", ["-s", "{U}/json"]),
    Case("get-chunked", ["-s", "{U}/chunked"]),
    Case("get-close-delimited", ["-s", "{U}/nolength"]),
    Case("get-two-urls", ["-s", "{U}/hello", "{U}/json"]),
    Case("get-headers-sent", ["-s", "-H", "X-Trace: 1", "-H", "Accept: application/json", "{U}/echo"]),
    Case("get-user-agent", ["-s", "-A", "nightly-job/1.0", "{U}/echo"]),
    Case("get-no-user-agent", ["-s", "-A", "", "{U}/echo"]),
    Case("get-referer", ["-s", "-e", "http://example.com/", "{U}/echo"]),
    Case("get-basic-auth", ["-s", "-u", "alice:secret", "{U}/auth"]),
    Case("get-header-removed", ["-s", "-H", "Accept:", "{U}/echo"],
         differs={"sent": "-H 'Accept:' cannot remove libcurl's own Accept: */* through the library, which has no "
                          "way to remove an engine's default header; courier sends it"}),
    Case("get-custom-header-removed", ["-s", "-H", "X-Gone: 1", "-H", "X-Gone:", "-H", "X-Empty;", "{U}/echo"]),
    Case("method-purge", ["-s", "-X", "PURGE", "{U}/echo"]),
    Case("method-delete", ["-s", "-X", "DELETE", "{U}/echo/item/1"]),

    # --- -fsSL and friends ----------------------------------------------------------------------
    Case("fsSL", ["-fsSL", "{U}/redirect/2"]),
    Case("fsSL-o", ["-fsSL", "-o", "page.txt", "{U}/redirect/2"]),
    Case("fsSL-404", ["-fsSL", "{U}/status/404"]),
    Case("fsSL-refused", ["-fsSL", "{R}/"]),
    Case("redirect-not-followed", ["-s", "{U}/redirect/1"]),
    Case("redirect-include-not-followed", ["-si", "{U}/redirect/1"]),
    Case("redirect-L", ["-L", "{U}/redirect/3"]),
    Case("redirect-L-include", ["-siL", "{U}/redirect/1"]),
    Case("redirect-L-max-redirs-hit", ["-sL", "--max-redirs", "2", "{U}/redirect/3"]),
    Case("redirect-L-max-redirs-ok", ["-sL", "--max-redirs", "3", "{U}/redirect/3"]),
    Case("redirect-L-max-redirs-o", ["-sL", "--max-redirs", "1", "-o", "out.txt", "{U}/redirect/3"]),
    Case("redirect-L-loop", ["-sL", "{U}/loop"]),
    Case("redirect-L-absolute", ["-sL", "{U}/absolute"]),
    Case("redirect-L-303-post", ["-sL", "-d", "a=1", "{U}/moved/303"]),
    Case("redirect-L-307-post", ["-sL", "-d", "a=1", "{U}/moved/307"]),
    Case("redirect-L-301-post", ["-sL", "-d", "a=1", "{U}/moved/301"]),
    Case("redirect-w-noL", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects} %{redirect_url}\\n",
                            "{U}/redirect/1"]),
    Case("redirect-w-L", ["-sL", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects} %{url_effective}\\n",
                          "{U}/redirect/2"]),

    # --- heads: -i, -I, -D ------------------------------------------------------------------------
    Case("include", ["-i", "{U}/headers"]),
    Case("include-silent-404", ["-si", "{U}/status/404"]),
    Case("head-I", ["-I", "{U}/hello"]),
    Case("head-sI-file", ["-sI", "{U}/files/data.bin"]),
    Case("head-long", ["-s", "--head", "{U}/headers"]),
    Case("head-I-o", ["-sI", "-o", "head.txt", "{U}/hello"]),
    Case("dump-header-file", ["-s", "-D", "head.txt", "-o", "body.txt", "{U}/headers"]),
    Case("dump-header-stdout", ["-s", "-D", "-", "-o", "/dev/null", "{U}/hello"]),
    Case("dump-header-L", ["-sL", "-D", "head.txt", "{U}/redirect/1"]),

    # --- -f, --fail-with-body, error pages ----------------------------------------------------------
    Case("status-404", ["-s", "{U}/status/404"]),
    Case("fail-404", ["-f", "{U}/status/404"]),
    Case("fail-silent-404", ["-fs", "{U}/status/404"]),
    Case("fail-show-error-404", ["-fsS", "{U}/status/404"]),
    Case("fail-with-body", ["-s", "--fail-with-body", "{U}/status/404"]),
    Case("fail-o-404", ["-fs", "-o", "page.txt", "{U}/status/404"]),
    Case("o-404", ["-s", "-o", "page.txt", "{U}/status/404"]),
    Case("fail-500-include", ["-fsi", "{U}/status/500"]),
    Case("write-out-code-404", ["-w", "%{http_code}", "-o", "/dev/null", "-s", "{U}/status/404"]),
    Case("write-out-code-200", ["-s", "-o", "/dev/null", "-w", "%{http_code}\\n", "{U}/hello"]),

    # --- errors and -s / -S ----------------------------------------------------------------------
    Case("refused", ["{R}/"]),
    Case("refused-silent", ["-s", "{R}/"]),
    Case("refused-show-error", ["-sS", "{R}/"]),
    Case("refused-write-out", ["-s", "-w", "%{http_code} %{exitcode}\\n", "{R}/"]),
    Case("timeout-max-time", ["-s", "--max-time", "1", "{U}/slow"]),
    Case("timeout-m-show-error", ["-sS", "-m", "1", "{U}/slow"]),
    Case("tls-untrusted", ["-s", "{T}/hello"]),
    Case("tls-insecure", ["-sk", "{T}/hello"]),
    Case("empty-reply", ["-s", "{U}/emptyreply"]),
    Case("cut-short", ["-s", "{U}/cut"]),
    Case("cut-short-o", ["-s", "-o", "cut.bin", "{U}/cut"]),
    Case("remove-on-error-cut", ["-s", "--remove-on-error", "-o", "cut.bin", "{U}/cut"]),
    Case("remove-on-error-404", ["-sf", "--remove-on-error", "-o", "page.txt", "{U}/status/404"]),
    Case("bad-url-scheme", ["-s", "ftp2://127.0.0.1/"]),

    # --- request bodies ---------------------------------------------------------------------------
    Case("data-file-crlf", ["-s", "-d", "@form.txt", "{U}/echo"], files={"form.txt": FORM_CRLF}),
    Case("data-binary-file", ["-s", "--data-binary", "@form.txt", "{U}/echo"], files={"form.txt": FORM_CRLF}),
    Case("data-binary-stdin", ["-s", "--data-binary", "@-", "{U}/echo"], stdin=UPLOAD),
    Case("data-stdin", ["-s", "-d", "@-", "{U}/echo"], stdin=FORM_CRLF),
    Case("data-binary-text", ["-s", "--data-binary", "a=1&b=2", "{U}/echo"]),
    Case("sS-post-json-file", ["-sS", "-X", "POST", "-H", "Content-Type: application/json", "-d", "@body.json",
                               "{U}/echo"], files={"body.json": JSON_BODY}),
    Case("data-raw-at", ["-s", "--data-raw", "@not-a-file", "{U}/echo"]),
    Case("data-urlencode", ["-s", "--data-urlencode", "q=a b&c", "--data-urlencode", "plain", "{U}/echo"]),
    Case("data-joined", ["-s", "-d", "a=1", "-d", "b=2", "{U}/echo"]),
    Case("get-with-data", ["-s", "-G", "-d", "q=1", "-d", "r=a b", "{U}/echo"],
         differs={"exit": "curl 7.88 puts -G data into the URL unescaped, so a space makes it malformed (exit 3); "
                          "courier escapes it (%20) and sends the request",
                  "stdout": "the same", "sent": "the same"}),
    Case("get-with-data-plain", ["-s", "-G", "-d", "q=1", "--data-urlencode", "r=a b", "{U}/echo"]),
    Case("json", ["-s", "--json", '{"a":1}', "{U}/echo"]),
    # The server's answer would depend on the multipart boundary, which curl picks at random: the
    # request is compared (its boundary normalised), not the answer.
    Case("form-multipart", ["-s", "-o", "/dev/null", "-F", "name=pen", "-F", "file=@note.txt", "{U}/upload"],
         files={"note.txt": b"a note\n"}),
    Case("url-query", ["-s", "--url-query", "q=a b", "--url-query", "x=1", "{U}/echo"]),
    Case("url-query-existing", ["-s", "--url-query", "n=2", "{U}/echo?m=1"]),
    Case("put-data", ["-s", "-X", "PUT", "-d", "v=1", "{U}/echo"]),

    # --- uploads ---------------------------------------------------------------------------------
    Case("upload-to-folder", ["-s", "-T", "up.bin", "{U}/upload/"], files={"up.bin": UPLOAD}),
    Case("upload-named", ["-s", "-T", "up.bin", "{U}/upload/named.bin"], files={"up.bin": UPLOAD}),
    Case("upload-stdin", ["-s", "-T", "-", "{U}/upload/stdin.bin"], stdin=UPLOAD),
    Case("upload-missing-file", ["-s", "-T", "nothing.bin", "{U}/upload/"]),

    # --- output names ------------------------------------------------------------------------------
    Case("remote-name", ["-sO", "{U}/files/small.txt"]),
    Case("remote-name-two", ["-s", "-O", "{U}/files/small.txt", "-O", "{U}/files/report.pdf"]),
    Case("remote-name-all", ["-s", "--remote-name-all", "{U}/files/small.txt", "{U}/files/report.pdf"]),
    Case("remote-name-no-name", ["-sO", "{U}/"]),
    Case("remote-header-name", ["-sJO", "{U}/disposition/plain"]),
    Case("remote-header-name-bare", ["-sJO", "{U}/disposition/bare"]),
    Case("remote-header-name-path", ["-sJO", "{U}/disposition/path"]),
    Case("remote-header-name-absolute", ["-sJO", "{U}/disposition/abs"]),
    Case("remote-header-name-none", ["-sJO", "{U}/disposition/none"]),
    Case("output-dir-missing", ["-s", "--output-dir", "out", "-O", "{U}/files/small.txt"]),
    Case("output-dir-create", ["-s", "--create-dirs", "--output-dir", "out", "-O", "{U}/files/small.txt"]),
    Case("create-dirs-o", ["-s", "--create-dirs", "-o", "a/b/c.txt", "{U}/hello"]),
    Case("o-missing-folder", ["-s", "-o", "nofolder/c.txt", "{U}/hello"]),
    Case("o-each-url", ["-s", "-o", "a.txt", "{U}/hello", "-o", "b.txt", "{U}/json"]),
    Case("o-empty-body", ["-s", "-o", "empty.txt", "{U}/empty"]),
    Case("o-replaces", ["-s", "-o", "old.txt", "{U}/hello"], files={"old.txt": b"an older and longer file\n"}),

    # --- resuming: -C ----------------------------------------------------------------------------
    Case("continue-o", ["-s", "-C", "-", "-o", "data.bin", "{U}/files/data.bin"],
         files={"data.bin": ("PARTIAL", "data.bin", 5000)}),
    Case("continue-O", ["-s", "-C", "-", "-O", "{U}/files/data.bin"],
         files={"data.bin": ("PARTIAL", "data.bin", 12345)}),
    Case("continue-complete", ["-s", "-C", "-", "-o", "data.bin", "{U}/files/data.bin"],
         files={"data.bin": ("PARTIAL", "data.bin", 20000)}),
    Case("continue-no-file", ["-s", "-C", "-", "-o", "data.bin", "{U}/files/data.bin"]),
    Case("continue-no-ranges", ["-s", "-C", "-", "-o", "nr.bin", "{U}/norange"],
         files={"nr.bin": ("PARTIAL", "norange", 1000)}),
    Case("continue-offset", ["-s", "-C", "100", "-o", "part.bin", "{U}/files/data.bin"]),
    # A 206 that does not start where the file ends: exit 33, the file left as it was.
    Case("continue-range-early", ["-s", "-C", "-", "-o", "br.bin", "{U}/badrange/early"],
         files={"br.bin": ("PARTIAL", "norange", 1000)}),
    Case("continue-range-late", ["-s", "-C", "-", "-o", "br.bin", "{U}/badrange/late"],
         files={"br.bin": ("PARTIAL", "norange", 1000)}),
    Case("continue-range-missing", ["-s", "-C", "-", "-o", "br.bin", "{U}/badrange/whole"],
         files={"br.bin": ("PARTIAL", "norange", 1000)}),
    Case("continue-range-offset", ["-s", "-C", "1000", "-o", "br.bin", "{U}/badrange/late"],
         files={"br.bin": ("PARTIAL", "norange", 1000)}),
    Case("range", ["-s", "-r", "0-99", "-o", "first.bin", "{U}/files/data.bin"]),

    # --- retries ------------------------------------------------------------------------------------
    Case("retry-503", ["-s", "--retry", "3", "--retry-delay", "1", "{U}/flaky/1"]),
    Case("retry-503-o", ["-s", "--retry", "3", "--retry-delay", "1", "-o", "out.txt", "{U}/flaky/1"]),
    Case("retry-404-not-transient", ["-s", "--retry", "3", "{U}/flaky/1/404"]),
    Case("retry-fail-500", ["-sf", "--retry", "2", "--retry-delay", "1", "{U}/flaky/1/500"]),
    Case("retry-all-errors", ["-sf", "--retry", "2", "--retry-all-errors", "--retry-delay", "1", "{U}/flaky/1/404"]),
    Case("retry-empty-reply", ["-s", "--retry", "2", "--retry-delay", "1", "{U}/flakyclose/1"]),
    Case("retry-all-errors-empty-reply", ["-s", "--retry", "2", "--retry-all-errors", "--retry-delay", "1",
                                          "{U}/flakyclose/1"]),
    Case("retry-refused", ["-s", "--retry", "2", "{R}/"]),
    Case("retry-connrefused", ["-s", "--retry", "1", "--retry-connrefused", "--retry-delay", "1", "{R}/"]),
    # Not -o /dev/null: curl 7.88 cannot truncate it before its retry and fails with 23.
    Case("retry-w-num-retries", ["-s", "--retry", "2", "--retry-delay", "1", "-o", "out.txt",
                                 "-w", "%{http_code} %{num_retries}\\n", "{U}/flaky/1/429"],
         differs={"stdout": "courier knows %{num_retries} (curl has it from 8.9.0); curl 7.88 prints nothing "
                            "for it, and a warning", "quiet": "the same warning"}),

    # --- config files ---------------------------------------------------------------------------------
    Case("config-file", ["-K", "cfg.txt"], files={"cfg.txt": CONFIG}),
    Case("config-stdin", ["-K", "-"], stdin=CONFIG),
    Case("config-with-args", ["-K", "cfg.txt", "-H", "X-Extra: 2"], files={"cfg.txt": CONFIG}),
    Case("config-forms", ["-K", "cfg.txt", "{U}/echo"], files={"cfg.txt": b"""
-s
--data "a=1"
data = "b=2"
-H 'X-Single: quoted value'
request=PATCH
user-agent: colon-form/1
"""}),
    Case("curlrc-read", ["-s", "{U}/echo"], home_files={".curlrc": b'header = "X-Rc: 1"\n'}),
    Case("curlrc-skipped", ["-q", "-s", "{U}/echo"], home_files={".curlrc": b'header = "X-Rc: 1"\n'}),

    # --- parallel -----------------------------------------------------------------------------------
    Case("parallel-o", ["-sZ", "-o", "a.txt", "{U}/hello", "-o", "b.txt", "{U}/json"], unordered=True,
         differs={"quiet": "curl 7.88.1 draws its parallel progress meter on stderr even with -s (fixed in later "
                             "curls); courier keeps -s silent"}),
    Case("parallel-max-O", ["-s", "-Z", "--parallel-max", "2", "-O", "{U}/files/small.txt",
                            "-O", "{U}/files/report.pdf", "-O", "{U}/files/data.bin"], unordered=True,
         differs={"quiet": "curl 7.88.1 draws its parallel progress meter on stderr even with -s (fixed in later "
                             "curls); courier keeps -s silent"}),
    Case("parallel-one-fails", ["-sZ", "-o", "a.txt", "{U}/hello", "-o", "b.txt", "{U}/status/404", "-f"],
         unordered=True, differs={"quiet": "curl 7.88.1 draws its parallel progress meter on stderr even with -s (fixed in later "
                             "curls); courier keeps -s silent"}),

    # --- ETags --------------------------------------------------------------------------------------
    Case("etag-save", ["-s", "--etag-save", "etag.txt", "-o", "body.txt", "{U}/etag"]),
    Case("etag-compare-match", ["-s", "--etag-compare", "etag.txt", "-o", "body.txt", "{U}/etag"],
         files={"etag.txt": b'"v7"\n'}),
    Case("etag-compare-save", ["-s", "--etag-compare", "etag.txt", "--etag-save", "etag.txt", "-o", "body.txt",
                               "{U}/etag"], files={"etag.txt": b'"old"\n'}),

    # --- compression ----------------------------------------------------------------------------------
    Case("gzip-not-asked", ["-s", "{U}/gzip"]),
    Case("gzip-compressed", ["-s", "--compressed", "{U}/gzip"]),
    Case("gzip-o-not-asked", ["-s", "-o", "g.bin", "{U}/gzip"]),
    Case("negotiated-compressed", ["-s", "--compressed", "{U}/negotiated"]),
    Case("negotiated-plain", ["-s", "{U}/negotiated"]),
    Case("deflate-compressed", ["-s", "--compressed", "{U}/deflate"]),

    # --- -w ----------------------------------------------------------------------------------------
    Case("write-out-size-devnull", ["-s", "-o", "/dev/null", "-w", "%{size_download}\\n", "{U}/files/data.bin"]),
    Case("write-out-basics", ["-s", "-o", "/dev/null", "-w",
                              "%{http_code} %{response_code} %{size_download} %{content_type} %{num_redirects} "
                              "%{scheme} %{size_upload} %{method} %{exitcode}\\n", "{U}/files/data.bin"]),
    Case("write-out-filename", ["-sO", "-w", "%{filename_effective}\\n", "{U}/files/small.txt"]),
    Case("write-out-upload", ["-s", "-d", "abcdef", "-o", "/dev/null", "-w", "%{size_upload} %{http_code}\\n",
                              "{U}/echo"]),
    Case("write-out-times", ["-s", "-o", "/dev/null", "-w", "%{time_total} %{time_namelookup} %{speed_download}\\n",
                             "{U}/hello"], stdout_rules=TIMES + [(r" [0-9]+\n", " <speed>\n")]),
    Case("write-out-wire", ["-s", "-o", "/dev/null", "-w",
                            "%{http_version} %{remote_ip} %{remote_port} %{num_connects} %{size_header}\\n",
                            "{U}/hello"],
         differs={"stdout": "wire-level values (HTTP version, addresses, connections) need the per-response "
                            "metrics API the library does not have yet: courier prints what curl prints "
                            "when it does not know"}),
    Case("write-out-json-keys", ["-s", "-o", "/dev/null", "-w", "%{json}", "{U}/hello"],
         stdout_transform=json_keys),

    # --- progress ---------------------------------------------------------------------------------------
    Case("no-progress-meter", ["--no-progress-meter", "-o", "out.bin", "{U}/files/data.bin"]),
    Case("progress-bar", ["-#", "-o", "out.bin", "{U}/files/data.bin"]),
    Case("verbose-o", ["-sv", "-o", "/dev/null", "{U}/hello"], quiet=False),

    # --- cookies -------------------------------------------------------------------------------------
    Case("cookie-jar", ["-s", "-b", "a=1", "-c", "jar.txt", "{U}/cookie"]),
    Case("cookie-file", ["-s", "-b", "jar.txt", "{U}/cookie"],
         files={"jar.txt": b"127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tfrom-file\n"}),

    # --- more bodies ---------------------------------------------------------------------------------
    Case("data-missing-file", ["-s", "-d", "@nothing.txt", "{U}/echo"]),
    Case("data-missing-file-noisy", ["-d", "@nothing.txt", "{U}/echo"]),
    Case("data-urlencode-missing-file", ["-s", "--data-urlencode", "name@nothing.txt", "{U}/echo"]),
    Case("json-file", ["-s", "--json", "@body.json", "{U}/echo"], files={"body.json": JSON_BODY}),
    Case("data-binary-content-type", ["-s", "--data-binary", "@form.txt", "-H", "Content-Type: text/plain",
                                      "{U}/echo"], files={"form.txt": FORM_CRLF}),
    Case("data-no-content-type", ["-s", "-H", "Content-Type:", "-d", "a=1", "{U}/echo"]),
    Case("url-query-raw", ["-s", "--url-query", "+raw=a%20b", "-G", "--url-query", "n=1", "{U}/echo"]),
    Case("range-stdout", ["-s", "-r", "10-19", "{U}/files/small.txt"]),
    Case("auth-wrong", ["-s", "-u", "alice:wrong", "{U}/auth"]),

    # --- more outputs ---------------------------------------------------------------------------------
    Case("status-204-o", ["-s", "-o", "f.txt", "{U}/status/204"]),
    Case("include-o", ["-si", "-o", "both.txt", "{U}/hello"]),
    Case("head-L", ["-sIL", "{U}/redirect/1"]),
    Case("dump-header-include", ["-si", "-D", "head.txt", "{U}/hello"]),
    Case("fail-with-body-o", ["-s", "--fail-with-body", "-o", "page.txt", "{U}/status/404"]),
    Case("fsSL-o-file", ["-fsSL", "-o", "out.bin", "{U}/files/data.bin"]),
    Case("sSf-write-out-500", ["-sSf", "-o", "/dev/null", "-w", "%{http_code}", "{U}/status/500"]),
    Case("remote-header-name-exists", ["-sJO", "{U}/disposition/plain"], files={"report.txt": b"mine\n"}),
    Case("output-dir-o", ["-s", "--output-dir", "out", "-o", "name.txt", "{U}/hello"], files={"out/keep": b""}),
    Case("output-dir-create-nested", ["-s", "--create-dirs", "--output-dir", "a/b", "-O", "{U}/files/small.txt"]),
    Case("remote-name-all-with-o", ["-s", "--remote-name-all", "-o", "first.txt", "{U}/hello", "{U}/files/small.txt"]),
    Case("max-filesize", ["-s", "--max-filesize", "100", "{U}/files/data.bin"]),
    Case("max-filesize-o", ["-s", "--max-filesize", "100", "-o", "big.bin", "{U}/files/data.bin"]),
    Case("timeout-o", ["-s", "-m", "1", "-o", "slow.txt", "{U}/slow"]),
    Case("compressed-o", ["-s", "--compressed", "-o", "g.txt", "{U}/gzip"]),
    Case("accept-encoding-header", ["-s", "-H", "Accept-Encoding: gzip", "{U}/gzip"]),

    # --- more -w -------------------------------------------------------------------------------------
    Case("write-out-header", ["-s", "-o", "/dev/null", "-w", "%header{content-type}|%header{x-many}\\n",
                              "{U}/headers"]),
    Case("write-out-onerror-fails", ["-s", "-o", "/dev/null", "-w", "done%{onerror} failed %{exitcode}\\n", "{R}/"]),
    Case("write-out-onerror-succeeds", ["-s", "-o", "/dev/null", "-w", "done%{onerror} failed %{exitcode}\\n",
                                        "{U}/hello"]),
    Case("write-out-stderr", ["-s", "-o", "/dev/null", "-w", "%{stderr}code %{stdout}%{http_code}\\n", "{U}/hello"],
         quiet=False),
    Case("write-out-file", ["-s", "-o", "/dev/null", "-w", "@fmt.txt", "{U}/hello"],
         files={"fmt.txt": b"code=%{http_code} type=%{content_type}\\n"}),
    Case("write-out-unknown", ["-o", "/dev/null", "-w", "%{nope}|%{http_code}\\n", "{U}/hello"]),
    Case("write-out-header-json", ["-s", "-o", "/dev/null", "-w", "%{header_json}", "{U}/headers"]),
    Case("write-out-two-urls", ["-s", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{urlnum} %{url} %{http_code}\\n",
                                "{U}/hello", "{U}/status/404"]),
    Case("write-out-size-header", ["-sL", "-o", "/dev/null", "-w", "%{size_header} %{num_headers}\\n",
                                   "{U}/redirect/1"]),

    # --- more retries and configs -----------------------------------------------------------------------
    Case("retry-timeout", ["-s", "--retry", "1", "--retry-delay", "1", "-m", "1", "{U}/slow"]),
    Case("retry-max-time", ["-s", "--retry", "3", "--retry-delay", "1", "--retry-max-time", "1", "{U}/flaky/5"]),
    Case("retry-after-honoured", ["-s", "--retry", "1", "{U}/flaky/1/503", "-w", "%{http_code}\\n"]),
    Case("config-output", ["-K", "cfg.txt"], files={"cfg.txt": b'url = "{U}/hello"\noutput = "out.txt"\nsilent\n'}),
    Case("config-missing", ["-s", "-K", "nothing.cfg", "{U}/hello"]),
    Case("sequential-exit-last", ["-s", "{R}/", "{U}/hello"]),
    Case("sequential-exit-last-fails", ["-s", "{U}/hello", "{R}/"]),
]
