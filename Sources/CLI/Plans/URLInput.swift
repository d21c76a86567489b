import Courier
import Foundation

/// Reads the URL arguments the way curl does: a missing scheme means `http://`.
enum URLInput {
    /// Messages quote the argument with its password hidden (see ``Redaction``).
    static func parse(_ text: String) throws(Failure) -> URL {
        let shown = Redaction.standard.redact(urlString: text)
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased() else {
            throw Failure(.invalidURL, "malformed URL '\(shown)'")
        }
        guard scheme == "http" || scheme == "https" else {
            throw Failure(.invalidURL, "unsupported URL scheme '\(scheme)' in '\(shown)' (only http and https)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw Failure(.invalidURL, "no host in URL '\(shown)'")
        }
        return url
    }
}
