import Foundation

/// Reads the URL arguments the way curl does: a missing scheme means `http://`.
enum URLInput {
    static func parse(_ text: String) throws(Failure) -> URL {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased() else {
            throw Failure(.invalidURL, "malformed URL '\(text)'")
        }
        guard scheme == "http" || scheme == "https" else {
            throw Failure(.invalidURL, "unsupported URL scheme '\(scheme)' in '\(text)' (only http and https)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw Failure(.invalidURL, "no host in URL '\(text)'")
        }
        return url
    }
}
