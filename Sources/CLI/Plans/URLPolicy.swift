import Foundation

/// What the options refuse of a URL before anything is sent: a scheme `--proto` leaves out
/// (curl's exit 1, libcurl's "not supported or disabled"), a user name in it with
/// `--disallow-username-in-url` (curl's exit 67, libcurl's `CURLE_LOGIN_DENIED`). libcurl checks
/// both when a transfer starts; courier checks them here, for every engine alike.
enum URLPolicy {
    static func check(_ url: URL, _ options: Options) throws(Failure) {
        let scheme = url.scheme?.lowercased() ?? ""
        if let protocols = options.protocols, !protocols.allows(scheme) {
            throw Failure(.failure, "Protocol \"\(scheme)\" not supported or disabled in libcurl (--proto)")
        }
        if options.disallowsUsernameInURL, let user = url.user, !user.isEmpty {
            throw Failure(.loginDenied, "--disallow-username-in-url is set and the URL names a user")
        }
    }
}
