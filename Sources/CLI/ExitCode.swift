/// The process exit status of `courier`, numbered like curl's where curl has an equivalent,
/// so scripts written against curl can keep their checks.
///
/// The table is documented in `courier --help` and Docs/CommandLine.md; keep the three in step.
enum ExitCode: Int32, CaseIterable, Sendable {
    /// Success.
    case ok = 0
    /// Any failure without a more specific code; also a URL or a redirect to a scheme other than
    /// http/https (curl's "unsupported protocol" is 1 as well).
    case failure = 1
    /// The command line is wrong: unknown option, missing URL, bad value.
    case usage = 2
    /// The URL is malformed.
    case invalidURL = 3
    /// A feature the engine in use does not have (curl's `CURLE_NOT_BUILT_IN`): a libcurl option
    /// such as `--resolve` on the URLSession engine.
    case notBuiltIn = 4
    /// The proxy's host name could not be resolved.
    case unknownProxy = 5
    /// The host name could not be resolved.
    case unknownHost = 6
    /// Nobody accepted the connection (at the server, or at the proxy).
    case connectionRefused = 7
    /// The server's reply is not valid HTTP (curl's "weird server reply"), or is of a media type
    /// the request refuses (`NetworkError.unexpectedContentType`; the commands accept any type today).
    case badResponse = 8
    /// The transfer ended before the whole body arrived.
    case partialTransfer = 18
    /// The server answered with a status of 400 or more, and `--fail` or `--fail-with-body` was
    /// given (always for `download`).
    case httpError = 22
    /// A file could not be written (output file, download folder, or stdout itself, including
    /// a pipe whose reader has gone, as with `courier URL | head`: curl's code too); `-O` of a
    /// URL with no file name; `-J` refusing to replace an existing file.
    case writeError = 23
    /// A file to send could not be read.
    case readError = 26
    /// libcurl's "out of memory", which libcurl 7.88 also reports for a response header line
    /// (or status line) longer than its 100 KiB limit: curl exits 27 there, and so does courier.
    case outOfMemory = 27
    /// `--timeout` passed, or the connection stalled.
    case timedOut = 28
    /// `-C`: the server's answer does not start where the file ends (the whole body, a `206`
    /// without `Content-Range`, or one whose range starts elsewhere: ``ResumeAnswer``), so the
    /// file cannot be resumed; nothing of the body is written.
    case rangeError = 33
    /// The TLS handshake failed, or the server refused the session during it.
    case tlsFailed = 35
    /// `--interface` names no interface, address or host this machine can connect from
    /// (libcurl's `CURLE_INTERFACE_FAILED`, curl's 45).
    case interfaceFailed = 45
    /// Redirects went round in circles.
    case tooManyRedirects = 47
    /// libcurl could not read an option's value (`--connect-to ::example.com:example.com`):
    /// curl's `CURLE_SETOPT_OPTION_SYNTAX`, 49.
    case badOptionSyntax = 49
    /// libcurl refused an option the curl engine set (curl's CURLE_UNKNOWN_OPTION): a libcurl
    /// without something courier needs. `--engine urlsession` avoids it.
    case libcurlRefusedOption = 48
    /// The server closed the connection without sending a single byte of reply.
    case emptyReply = 52
    /// The body is larger than `--max-filesize`, or (with `--json-output`, which holds it) larger
    /// than the library's in-memory limit, or it passed one of the library's limits against
    /// hostile replies (`NetworkError.limitExceeded`: a compressed body that inflates too far).
    case tooLarge = 63
    /// Any other network failure: the connection was reset while receiving, a TLS 1.3 server
    /// refused the client certificate after the handshake, a proxy refused the tunnel (`407`
    /// to `CONNECT`, as curl 7.88 exits), more than 300 kB of response headers (libcurl's "Too
    /// large response headers", as curl 7.88 exits), and so on.
    case networkFailure = 56
    /// A body libcurl cannot decode with `--compressed` (curl's `CURLE_BAD_CONTENT_ENCODING`).
    case badContentEncoding = 61
    /// The client certificate or key (`--cert`, `--key`) cannot be used.
    case badClientCertificate = 58
    /// `--disallow-username-in-url` and a URL that names a user (curl's CURLE_LOGIN_DENIED).
    case loginDenied = 67
    /// The server's certificate could not be verified.
    case badCertificate = 60
    /// A download's destination already exists. The built-in commands replace files, so they do
    /// not produce it today; the library can, so the mapping stays complete.
    case destinationExists = 73
    /// The `--cacert` file cannot be read.
    case badCertificateAuthorities = 77
    /// The server's public key matches no `--pinnedpubkey`.
    case pinnedKeyMismatch = 90
    /// An HTTP/2 stream failed while the connection lived on: the server reset it (`RST_STREAM`,
    /// e.g. `INTERNAL_ERROR` mid-body) or closed it uncleanly (curl's CURLE_HTTP2_STREAM). The
    /// curl engine reports it; URLSession cannot speak HTTP/2 over cleartext on Linux.
    case http2Stream = 92
    /// A SOCKS proxy's handshake failed (libcurl's `CURLE_PROXY`, 7.73.0 on; older libcurls
    /// report 7 or 56 there).
    case proxyHandshakeFailed = 97
    /// libcurl's "a value grew larger than allowed" (`CURLE_TOO_LARGE`, libcurl 8.6.0 and later),
    /// which it says of a response header line over 100 KiB where older libcurls say "out of
    /// memory" (27), and from 8.14.0 of more than 5,000 header lines: curl exits 100 there, and so
    /// does courier.
    case valueTooLarge = 100
    /// Stopped by Ctrl-C (SIGINT) or SIGTERM.
    case interrupted = 130

    /// One line for the exit-code table of `--help`, or `nil` for codes the commands never give.
    var summary: String? {
        switch self {
        case .ok: return "success"
        case .failure: return "other failure; a URL or redirect with a scheme other than http/https"
        case .usage: return "usage error (unknown option, missing URL, bad value, bad header)"
        case .invalidURL: return "malformed URL"
        case .notBuiltIn: return "a feature the engine in use lacks (--resolve, --noproxy, … on URLSession)"
        case .unknownProxy: return "could not resolve the proxy"
        case .unknownHost: return "could not resolve the host"
        case .connectionRefused: return "could not connect to the server or proxy (connection refused)"
        case .badResponse: return "the server's reply is not valid HTTP"
        case .partialTransfer: return "the connection closed before the body was complete"
        case .httpError: return "HTTP status >= 400 with --fail or --fail-with-body (always for download)"
        case .writeError: return "could not write the output"
        case .readError: return "could not read a file to send"
        case .outOfMemory: return "out of memory, or a response header line over 100 KiB (as curl 7.88)"
        case .timedOut: return "timed out (--max-time, or a stalled connection)"
        case .rangeError: return "-C: the server does not support byte ranges; the file cannot be resumed"
        case .tlsFailed: return "TLS handshake failed (e.g. a client certificate required, or refused)"
        case .proxyHandshakeFailed: return "the SOCKS proxy's handshake failed"
        case .interfaceFailed: return "--interface: no such interface, address or host to connect from"
        case .tooManyRedirects: return "too many redirects"
        case .badOptionSyntax: return "libcurl could not read an option's value (--connect-to, --resolve)"
        case .badContentEncoding: return "a compressed body that cannot be decoded (--compressed)"
        case .emptyReply: return "the server closed the connection without replying"
        case .tooLarge: return "body larger than --max-filesize, or too large to hold for --json-output"
        case .networkFailure: return "other network failure (e.g. connection reset, the proxy refused the tunnel, headers over 300 kB)"
        case .libcurlRefusedOption: return "libcurl refused an option of the curl engine (--engine urlsession avoids it)"
        case .badClientCertificate: return "the client certificate or key (--cert, --key) cannot be used"
        case .badCertificate: return "server certificate not trusted"
        case .loginDenied: return "--disallow-username-in-url: the URL names a user"
        case .destinationExists: return nil
        case .badCertificateAuthorities: return "the --cacert file cannot be read"
        case .pinnedKeyMismatch: return "the server's public key does not match --pinnedpubkey"
        case .http2Stream: return "an HTTP/2 stream was reset or not closed cleanly (e.g. RST_STREAM mid-body)"
        case .valueTooLarge: return "a header line over 100 KiB (libcurl 8.6+; 27 before), or over 5,000 header lines (8.14+)"
        case .interrupted: return "interrupted (Ctrl-C or SIGTERM); downloads can be resumed"
        }
    }
}
