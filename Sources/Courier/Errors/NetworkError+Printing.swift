import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Every way Swift prints a value goes through these, so that none of them shows what the
// default reflection would: the `failingURL` inside a `URLError` (with its password and
// `access_token`), a response's `Set-Cookie`. `"\(error)"` and `print` use `description`;
// `String(reflecting:)` and `debugPrint` use `debugDescription`; `dump` and the debugger's
// children use `customMirror`.

extension NetworkError: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The one-line description (``errorDescription``), URLs shown through ``Redaction/standard``.
    public var description: String {
        description(redacting: .standard)
    }

    /// The case's name and the description: `NetworkError.transport: Could not connect to …`.
    public var debugDescription: String {
        "NetworkError.\(caseName): \(description)"
    }

    /// The case and what it carries, redacted: responses as ``HTTPResponse`` (which redacts
    /// itself), errors and URLs as redacted text.
    public var customMirror: Mirror {
        let redaction = Redaction.standard
        func text(_ error: any Error) -> String { redaction.redact(text: String(describing: error)) }
        func text(_ error: URLError) -> String {
            "URLError \(error.code.rawValue)" + ((error.userInfo[NSLocalizedDescriptionKey] as? String).map { ": " + redaction.redact(text: $0) } ?? "")
                + (error.failingURL.map { " (\(redaction.redact($0)))" } ?? "")
        }
        let children: KeyValuePairs<String, Any>
        switch self {
        case let .invalidURL(detail), let .invalidRequest(detail), let .invalidResponse(detail), let .wouldDeadlock(detail):
            children = ["detail": redaction.redact(text: detail)]
        case .cancelled:
            children = [:]
        case let .timedOut(timeout):
            children = ["kind": timeout.kind, "seconds": timeout.seconds as Any, "url": timeout.url.map(redaction.redact) as Any]
        case let .transport(error), let .incompleteBody(error):
            children = ["error": text(error)]
        case let .tls(failure, error):
            children = ["failure": failure, "error": text(error)]
        case let .proxy(failure, error):
            children = ["failure": failure, "error": text(error)]
        case let .curlOptionRefused(option, version, error):
            children = ["option": option, "libcurlVersion": version, "error": text(error)]
        case let .httpStatus(response), let .tooManyRedirects(response):
            children = ["response": response]
        case let .decodingFailed(error, response):
            children = ["error": text(error), "response": response]
        case let .unexpectedContentType(expected, response):
            children = ["expected": expected, "response": response]
        case let .encodingFailed(error), let .interceptorFailed(error):
            children = ["error": text(error)]
        case let .fileSystem(url, error):
            children = ["file": url.path, "error": text(error)]
        case let .responseTooLarge(limit):
            children = ["limit": limit]
        case let .limitExceeded(limit):
            children = ["limit": limit]
        case let .unsupportedRedirect(scheme, response):
            children = ["scheme": scheme, "response": response]
        case let .destinationExists(url):
            children = ["destination": url.path]
        }
        return Mirror(self, children: children, displayStyle: .enum)
    }

    /// The name of the case, as written in code.
    var caseName: String {
        switch self {
        case .invalidURL: return "invalidURL"
        case .invalidRequest: return "invalidRequest"
        case .cancelled: return "cancelled"
        case .timedOut: return "timedOut"
        case .transport: return "transport"
        case .tls: return "tls"
        case .proxy: return "proxy"
        case .curlOptionRefused: return "curlOptionRefused"
        case .invalidResponse: return "invalidResponse"
        case .incompleteBody: return "incompleteBody"
        case .httpStatus: return "httpStatus"
        case .decodingFailed: return "decodingFailed"
        case .unexpectedContentType: return "unexpectedContentType"
        case .encodingFailed: return "encodingFailed"
        case .wouldDeadlock: return "wouldDeadlock"
        case .fileSystem: return "fileSystem"
        case .interceptorFailed: return "interceptorFailed"
        case .responseTooLarge: return "responseTooLarge"
        case .limitExceeded: return "limitExceeded"
        case .tooManyRedirects: return "tooManyRedirects"
        case .unsupportedRedirect: return "unsupportedRedirect"
        case .destinationExists: return "destinationExists"
        }
    }
}
