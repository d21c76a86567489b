import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why `courier` stops before success: the exit status, and the one line that explains it.
///
/// URLs in messages go through ``Redaction/standard``: a `user:password@` or a token in the
/// query never reaches the terminal or a CI log.
struct Failure: Error, Equatable {
    let exitCode: ExitCode
    let message: String
    /// Said even with `-s`, as curl says its complaints about the command line itself (a file
    /// to upload that cannot be opened) whatever `-s` asks.
    var isShownWhenSilent = false

    init(_ exitCode: ExitCode, _ message: String, isShownWhenSilent: Bool = false) {
        self.exitCode = exitCode
        self.message = message
        self.isShownWhenSilent = isShownWhenSilent
    }

    /// A mistake on the command line; the caller prints the usage line after the message.
    static func usage(_ message: String) -> Failure {
        Failure(.usage, message)
    }

    /// Translates whatever a request or download failed with into an exit status and a message
    /// that names what the user can act on (the host, the file, the deadline).
    ///
    /// `timeout` is `--timeout` and `connectTimeout` `--connect-timeout`, to say which one passed.
    init(_ error: any Error, url: URL?, timeout: TimeInterval?, connectTimeout: TimeInterval? = nil) {
        let place = url.map { " (\(Redaction.standard.redact($0)))" } ?? ""
        guard let error = error as? NetworkError else {
            self.init(.failure, error.localizedDescription)
            return
        }
        switch error {
        case let .invalidURL(detail):
            self.init(.invalidURL, "invalid URL: \(detail)")
        case let .invalidRequest(detail):
            // Only what was typed can make a request invalid (a header, --timeout): a usage error.
            self.init(.usage, "invalid request: \(detail)")
        case .cancelled:
            self.init(.interrupted, "interrupted")
        case let .timedOut(limit) where limit.kind == .connect:
            // curl: "Connection timed out after 1001 milliseconds".
            self.init(.timedOut, "could not connect to \(url?.host ?? "the host") within \(Units.seconds(limit.seconds ?? connectTimeout ?? 0)) (--connect-timeout)" + place)
        case let .timedOut(limit) where limit.kind == .idle:
            self.init(.timedOut, "timed out: no data for \(Units.seconds(limit.seconds ?? 0))" + place)
        case .timedOut:
            self.init(.timedOut, Self.timeoutMessage(timeout, connectTimeout) + place)
        case let .transport(urlError):
            self.init(urlError, url: url, timeout: timeout, connectTimeout: connectTimeout)
        case let .tls(failure, urlError):
            self.init(failure, urlError, url: url)
        case let .proxy(failure, urlError):
            self.init(failure, urlError, url: url)
        case let .invalidResponse(detail):
            self.init(Self.exitCode(forInvalidResponse: detail),
                      "the reply from \(url?.host ?? "the server") is not valid HTTP: \(detail)" + place)
        case let .incompleteBody(urlError):
            self.init(.partialTransfer, "the connection closed before the body was complete (\(urlError.localizedDescription))" + place)
        case let .httpStatus(response):
            self.init(.httpError, "HTTP \(response.statusCode) \(ReasonPhrase.text(for: response.statusCode))" + place)
        case let .tooManyRedirects(response):
            let location = response.headers["Location"].map { Redaction.standard.redact(urlString: $0) } ?? "?"
            self.init(.tooManyRedirects, "too many redirects (the last one to \(location))" + place)
        case let .unsupportedRedirect(scheme, response):
            let location = response.headers["Location"].map { Redaction.standard.redact(urlString: $0) } ?? "?"
            self.init(.failure, "redirect to unsupported scheme '\(scheme)' refused (HTTP \(response.statusCode), "
                + "Location: \(location))" + place)
        case let .limitExceeded(limit):
            // curl's nearest: a body past --max-filesize.
            self.init(.tooLarge, limit.description + place)
        case let .responseTooLarge(limit):
            self.init(.tooLarge, "the body is larger than \(Units.bytes(limit)), too much to hold in memory; stream it instead" + place)
        case let .encodingFailed(error):
            self.init(.readError, "could not encode the request body: \(error.localizedDescription)")
        case let .fileSystem(file, error):
            self.init(.writeError, "\(file.path): \(Self.describe(error))")
        case let .destinationExists(file):
            self.init(.destinationExists, "\(file.path) already exists")
        case let .unexpectedContentType(expected, response):
            // The commands accept any type today; a reply of a type the request refused is one
            // the tool cannot use, curl's "weird server reply".
            let type = response.headers["Content-Type"] ?? "none"
            self.init(.badResponse, "unexpected Content-Type \(type) (expected \(expected.joined(separator: " or ")))" + place)
        case let .curlOptionRefused(option, libcurlVersion, urlError):
            self.init(.libcurlRefusedOption, "libcurl \(libcurlVersion) refused \(option) (\(urlError.localizedDescription)); "
                + "--engine urlsession avoids it" + place)
        default:
            // Cases the commands cannot meet (decoding, interceptors, deadlock guards) and any the
            // library adds later: the library's own one-line description.
            self.init(.failure, error.localizedDescription)
        }
    }

    private init(_ error: URLError, url: URL?, timeout: TimeInterval?, connectTimeout: TimeInterval?) {
        let host = url?.host ?? "the host"
        let place = url.map { " (\(Redaction.standard.redact($0)))" } ?? ""
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed:
            self.init(.unknownHost, "could not resolve host \(host)")
        case .cannotConnectToHost:
            let port = url?.port.map { ":\($0)" } ?? ""
            self.init(.connectionRefused, "could not connect to \(host)\(port): connection refused")
        case .timedOut:
            // libcurl's low-speed limit (-Y, -y) names what passed, as curl prints it.
            let text = error.localizedDescription
            if let range = text.range(of: "Operation too slow") {
                self.init(.timedOut, String(text[range.lowerBound...]) + place)
            } else {
                self.init(.timedOut, Self.timeoutMessage(timeout, connectTimeout) + place)
            }
        case .badServerResponse:
            // FoundationNetworking's code for libcurl's "Empty reply from server" (the curl
            // engine's CURLE_GOT_NOTHING; its other bad replies are `invalidResponse`).
            self.init(.emptyReply, "empty reply from \(host): the connection closed without a response" + place)
        case .cannotParseResponse:
            self.init(.badResponse, "unintelligible reply from \(host)")
        case .networkConnectionLost:
            self.init(.networkFailure, "connection to \(host) lost (\(error.localizedDescription))" + place)
        case .httpTooManyRedirects:
            self.init(.tooManyRedirects, "too many redirects" + place)
        default:
            // A body cut short arrives as NetworkError.incompleteBody, a reply that is not HTTP as
            // .invalidResponse: what is left is reported as libcurl described it, with the exit
            // status curl gives for it: the curl engine keeps libcurl's code, which is curl's.
            // (URLSession on Linux runs libcurl too, but passes on only its message.)
            let code = error.curlCode.flatMap { ExitCode(rawValue: Int32($0)) }
                ?? (error.localizedDescription == "Out of memory" ? .outOfMemory
                    : error.localizedDescription == "A value or data field grew larger than allowed" ? .valueTooLarge : .networkFailure)
            if code == .outOfMemory {
                self.init(code, "the reply from \(host) could not be read: libcurl says \"Out of memory\", "
                    + "as it does of a response header line longer than 100 KiB" + place)
                return
            }
            self.init(code, "network error \(error.code.rawValue): \(error.localizedDescription)" + place)
        }
    }

    /// curl's exit status for a reply that is not valid HTTP: 8, its "weird server reply", but
    /// for the heads libcurl refuses for their size, whose codes are not 8 and depend on the
    /// libcurl (measured with curl against a raw loopback server on 7.88.1 and 8.14.1): over
    /// 300 kB of header lines, "Too large response headers", is a receive error (56); one line
    /// over 100 KiB (a header, a reason phrase) is "Out of memory" (27) before libcurl 8.6.0 and
    /// `CURLE_TOO_LARGE` (100) from it; more than 5,000 header lines (8.14 and later) is 100
    /// too. The library reports them as `invalidResponse` and says which limit was passed
    /// (``OversizedHead``), on both engines (both read heads with the same libcurl); libcurl's
    /// own words are the fallback.
    static func exitCode(forInvalidResponse detail: String) -> ExitCode {
        switch OversizedHead(message: detail) {
        case .line?: return (Network.Engine.curlFeatures?.versionNumber ?? 0) >= 0x080600 ? .valueTooLarge : .outOfMemory
        case .fields?: return .networkFailure
        case .fieldCount?: return .valueTooLarge
        case nil: break
        }
        // A status line libcurl cannot read as a version it speaks (`HTTP/1.2`, `HTTP/1.1 abc`):
        // libcurl's CURLE_UNSUPPORTED_PROTOCOL, curl's exit 1, on both engines (FoundationNetworking's
        // libcurl says the same). 7.88 says "Unsupported HTTP version", 8.x "Unsupported HTTP/1 subversion".
        // A status code outside 100 to 999 (`HTTP/1.1 -12`) is the same to libcurl 7.88.
        // An answer without a status line where HTTP/0.9 is not allowed (`--http0.9`; libcurl's
        // default from 7.66.0) is the same CURLE_UNSUPPORTED_PROTOCOL.
        if detail.contains("Unsupported HTTP") || detail.contains("Unsupported response code")
            || detail.contains("HTTP/0.9 when not allowed") { return .failure }
        // A body libcurl cannot decode (a broken gzip header, more than 5 codings): curl's
        // CURLE_BAD_CONTENT_ENCODING.
        if detail.contains("content unencoding") || detail.contains("content encodings") { return .badContentEncoding }
        // A coding libcurl's decoder refuses at the start ("Unrecognized or bad HTTP Content or
        // Transfer-Encoding", a broken brotli stream): the same CURLE_BAD_CONTENT_ENCODING.
        if detail.contains("Content or Transfer-Encoding") { return .badContentEncoding }
        // A chunk size libcurl cannot read ("Illegal or missing hexadecimal sequence", "Too long
        // hexadecimal number" … "in chunked-encoding"; from 8.6 "chunk hex-length char not a hex
        // digit", "chunk hex-length longer than …", "invalid chunk size"): its CURLE_RECV_ERROR,
        // curl's 56.
        if detail.contains("in chunked-encoding") || detail.contains("chunk hex-length") || detail.contains("invalid chunk size") {
            return .networkFailure
        }
        if detail.contains("Too large response headers") { return .networkFailure }
        if detail.contains("Out of memory") { return .outOfMemory }
        return .badResponse
    }

    /// curl's exit code for each TLS failure, with the TLS library's reason.
    private init(_ failure: TLSFailure, _ error: URLError, url: URL?) {
        let host = url?.host ?? "the host"
        let reason = error.localizedDescription
        switch failure {
        case .untrustedCertificate:
            self.init(.badCertificate, "the certificate of \(host) is not trusted (\(reason)); --cacert FILE names its authority")
        case .pinnedKeyMismatch:
            self.init(.pinnedKeyMismatch, "the public key of \(host) does not match --pinnedpubkey (\(reason))")
        case .unusableClientCertificate:
            self.init(.badClientCertificate, "the client certificate or key cannot be used: \(reason)")
        case .unreadableCertificateAuthorities:
            self.init(.badCertificateAuthorities, "cannot read the --cacert file: \(reason)")
        case .handshakeFailed:
            // curl says 56 for a refusal that comes after the handshake (as TLS 1.3 servers
            // refuse a client certificate), 35 for one during it.
            let code: ExitCode = error.code == .networkConnectionLost ? .networkFailure : .tlsFailed
            self.init(code, "TLS handshake with \(host) failed: \(reason)")
        case .unsupportedByEngine:
            // The options are checked against the engine before anything starts; kept complete.
            self.init(.failure, reason)
        }
    }

    /// curl's exit code for each proxy failure; the message names the proxy, not the server.
    private init(_ failure: ProxyFailure, _ error: URLError, url: URL?) {
        let place = url.map { " (\(Redaction.standard.redact($0)))" } ?? ""
        switch failure {
        case let .unresolvableHost(proxy):
            self.init(.unknownProxy, "could not resolve proxy \(proxy)")
        case let .connectionRefused(proxy):
            self.init(.connectionRefused, "could not connect to proxy \(proxy): connection refused")
        case let .tunnelRefused(status):
            self.init(.networkFailure, "the proxy refused the tunnel to \(url?.host ?? "the host"): HTTP \(status) "
                + "\(ReasonPhrase.text(for: status))" + place)
        }
    }

    /// Courier's deadline (`--timeout`) and an engine's own timeout (its backstop behind
    /// `--connect-timeout`) both arrive as a timeout; the message names what was set.
    private static func timeoutMessage(_ timeout: TimeInterval?, _ connectTimeout: TimeInterval?) -> String {
        let idle = connectTimeout.map { "no connection within \(Units.seconds($0)) (--connect-timeout)" }
        switch (timeout.flatMap { $0.isFinite ? $0 : nil }, idle) {
        case (nil, nil): return "timed out: the connection stalled"
        case let (nil, idle?): return "timed out: \(idle)"
        case let (timeout?, nil): return "timed out after \(Units.seconds(timeout))"
        case let (timeout?, idle?): return "timed out after \(Units.seconds(timeout)), or \(idle)"
        }
    }

    /// The system's reason without Foundation's boilerplate where a POSIX error is underneath.
    static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
