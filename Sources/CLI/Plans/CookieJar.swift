import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `-b` and `-c`: the cookies a request starts with, and the file those it ends with go to.
///
/// The session's own cookie storage does the work in between: it sends the cookies that match
/// each request (redirects included) and keeps those the server sets. This plan fills it
/// before the request and writes it out after.
struct CookieJar: Sendable {
    /// `-b 'name=value; n2=v2'`: sent to the request's host. Not saved by `-c`, as in curl.
    let pairs: [(name: String, value: String)]
    /// `-b FILE`: the unexpired cookies of the files.
    let entries: [CookieFile.Entry]
    /// `-c FILE`.
    let saveFile: URL?

    /// `nil` when neither `-b` nor `-c` was given. As in curl, an argument with `=` is a cookie
    /// string, anything else a file, and a file that cannot be read gives no cookies (so that
    /// `-b jar -c jar` works on the first run).
    ///
    /// - Throws: A usage error for a cookie string with a line break or another control
    ///   character, as for `-H`: it would end up in the `Cookie` header, where the library drops
    ///   the cookie it cannot send, and the request would go without it, silently.
    init?(_ options: Options, now: Date = Date()) throws(Failure) {
        guard !options.cookies.isEmpty || options.cookieJar != nil else { return nil }
        var pairs: [(name: String, value: String)] = []
        var entries: [CookieFile.Entry] = []
        for argument in options.cookies {
            if argument.contains("=") {
                try ImpliedHeaders.checkPrintable(argument, "-b")
                for pair in argument.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = parts[0].trimmingCharacters(in: .whitespaces)
                    guard !name.isEmpty else { continue }
                    pairs.append((name, parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""))
                }
            } else if let text = try? String(contentsOfFile: argument, encoding: .utf8) {
                // -j: a new session, which the file's session cookies (expiry 0) do not outlive.
                entries += CookieFile.parse(text).filter { !$0.isExpired(at: now) && !(options.junkSessionCookies && $0.expires == 0) }
            }
        }
        self.pairs = pairs
        self.entries = entries
        self.saveFile = options.cookieJar.map { URL(fileURLWithPath: $0) }
    }

    /// Puts the cookies into `storage` and returns those from `-b` strings, which ``save(_:excluding:now:)``
    /// leaves out (unless the server sets them again, which replaces them).
    func install(in storage: HTTPCookieStorage, for url: URL) -> [HTTPCookie] {
        for entry in entries {
            if let cookie = entry.cookie { storage.setCookie(cookie) }
        }
        let host = url.host ?? ""
        let fromStrings = pairs.compactMap { pair in
            CookieFile.Entry(domain: host, includesSubdomains: false, path: "/", secure: false, expires: 0,
                             name: pair.name, value: pair.value, httpOnly: false).cookie
        }
        fromStrings.forEach(storage.setCookie)
        return fromStrings
    }

    /// Writes the cookies in `storage` to the `-c` file, if one was given: all of them but
    /// `excluded` and the expired ones, session cookies included (curl keeps them too).
    func save(_ storage: HTTPCookieStorage, excluding excluded: [HTTPCookie], now: Date = Date()) throws(Failure) {
        guard let saveFile else { return }
        // Newest first, as curl writes its jar (it sorts by creation time).
        let cookies = (storage.cookies ?? []).filter { cookie in !excluded.contains { $0 === cookie } }
            .sorted { ($0.created ?? 0) > ($1.created ?? 0) }
        let entries = cookies.map(CookieFile.Entry.init).filter { !$0.isExpired(at: now) }
        do {
            try Data(CookieFile.render(entries).utf8).write(to: saveFile, options: .atomic)
        } catch {
            throw Failure(.writeError, "cannot save cookies to \(saveFile.path): \(Failure.describe(error))")
        }
    }
}
