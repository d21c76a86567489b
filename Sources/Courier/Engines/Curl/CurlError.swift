import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a libcurl result code into the `URLError` the rest of Courier (retry policy, error
/// mapping, the CLI's exit codes) already understands, keeping the code itself.
///
/// The `CURLcode` travels in the error's `userInfo` under ``codeKey``: curl's command-line exit
/// codes are these very numbers, so `courier` reports exactly what curl would.
enum CurlError {
    /// `userInfo` key of the `CURLcode` (an `Int`) behind a curl-engine `URLError`.
    static let codeKey = "CourierCurlCode"
    /// `userInfo` key of the status a proxy answered the tunnel's `CONNECT` with (an `Int`),
    /// present when the transfer failed after one (`CURLINFO_HTTP_CONNECTCODE`).
    static let connectStatusKey = "CourierCurlConnectStatus"
    /// `userInfo` keys of the option libcurl refused (`CURLOPT_…`, a `String`) and of that
    /// libcurl's version (a `String`), present when the transfer could not be set up because of it.
    static let refusedOptionKey = "CourierCurlRefusedOption"
    static let libcurlVersionKey = "CourierLibcurlVersion"

    static func urlError(code: Int32, url: URL?, detail: String? = nil, connectStatus: Int = 0,
                         refusedOption: String? = nil, libcurlVersion: String? = nil, metrics: TransferMetrics? = nil) -> URLError {
        let description = detail ?? String(cString: ccurl_easy_strerror(code))
        var userInfo: [String: Any] = [codeKey: Int(code), NSLocalizedDescriptionKey: description]
        if let metrics {
            userInfo[URLError.transferMetricsKey] = metrics
        }
        if connectStatus != 0 {
            userInfo[connectStatusKey] = connectStatus
        }
        if let refusedOption {
            userInfo[refusedOptionKey] = refusedOption
            userInfo[libcurlVersionKey] = libcurlVersion ?? "?"
        }
        if let url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        return URLError(urlErrorCode(for: code), userInfo: userInfo)
    }

    /// The `URLError.Code` URLSession gives for the same failure, so that retry policies and
    /// error handling written for one engine hold for the other.
    private static func urlErrorCode(for code: Int32) -> URLError.Code {
        switch Int(code) {
        case Int(CCURLE_UNSUPPORTED_PROTOCOL): return .unsupportedURL
        case Int(CCURLE_URL_MALFORMAT): return .badURL
        case Int(CCURLE_COULDNT_RESOLVE_HOST), Int(CCURLE_COULDNT_RESOLVE_PROXY): return .cannotFindHost
        case Int(CCURLE_COULDNT_CONNECT): return .cannotConnectToHost
        case Int(CCURLE_OPERATION_TIMEDOUT): return .timedOut
        case Int(CCURLE_PARTIAL_FILE), Int(CCURLE_RECV_ERROR), Int(CCURLE_SEND_ERROR): return .networkConnectionLost
        case Int(CCURLE_WEIRD_SERVER_REPLY), Int(CCURLE_GOT_NOTHING): return .badServerResponse
        case Int(CCURLE_TOO_MANY_REDIRECTS): return .httpTooManyRedirects
        case Int(CCURLE_BAD_CONTENT_ENCODING): return .cannotDecodeContentData
        case Int(CCURLE_PEER_FAILED_VERIFICATION), Int(CCURLE_SSL_PINNEDPUBKEYNOTMATCH): return .serverCertificateUntrusted
        case Int(CCURLE_SSL_CERTPROBLEM): return .clientCertificateRejected
        case Int(CCURLE_SSL_CONNECT_ERROR), Int(CCURLE_SSL_CACERT_BADFILE): return .secureConnectionFailed
        case Int(CCURLE_ABORTED_BY_CALLBACK): return .cancelled
        case Int(CCURLE_READ_ERROR): return .cannotOpenFile
        default: return .unknown
        }
    }
}

extension URLError {
    /// The libcurl result code behind an error of the curl engine, or `nil` (URLSession).
    /// `package`: the `courier` tool exits with it, as curl does.
    package var curlCode: Int? { userInfo[CurlError.codeKey] as? Int }

    /// The status a proxy answered `CONNECT` with, on the curl engine, when the transfer failed after one.
    var curlConnectStatus: Int? { userInfo[CurlError.connectStatusKey] as? Int }

    /// The option libcurl refused and its version, when that is why the transfer never started.
    var curlRefusedOption: (option: String, libcurlVersion: String)? {
        guard let option = userInfo[CurlError.refusedOptionKey] as? String else { return nil }
        return (option, userInfo[CurlError.libcurlVersionKey] as? String ?? "?")
    }
}
